-- wrk script of Scripts/server-check.sh: a mix of reads and writes on the to-do API.
--
-- Seven requests in ten read the ten most recent items (GET /todos?limit=10), three create one
-- (POST /todos). Each thread counts its responses by status class; with an output prefix given after
-- `--` (wrk ... -- PREFIX), each thread also writes the id of every item created with a 201 to
-- PREFIX-N.txt, one per line, so that the check can look them up in the database.

local threads = {}
local next_id = 0

function setup(thread)
    next_id = next_id + 1
    thread:set("number", next_id)
    table.insert(threads, thread)
end

local counter = 0
local created_file = nil
ok = 0
client_errors = 0
server_errors = 0
created = 0

function init(args)
    if args[1] ~= nil then
        created_file = io.open(args[1] .. "-" .. number .. ".txt", "w")
        created_file:setvbuf("line")
    end
end

local post_headers = { ["Content-Type"] = "application/json" }

function request()
    counter = counter + 1
    if counter % 10 < 3 then
        return wrk.format("POST", "/todos", post_headers, '{"title":"item ' .. counter .. '"}')
    end
    return wrk.format("GET", "/todos?limit=10")
end

function response(status, headers, body)
    if status >= 500 then
        server_errors = server_errors + 1
    elseif status >= 400 then
        client_errors = client_errors + 1
    else
        ok = ok + 1
    end
    if status == 201 then
        created = created + 1
        if created_file ~= nil then
            local id = string.match(body, '"id":"([^"]+)"')
            if id ~= nil then created_file:write(id, "\n") end
        end
    end
end

function done(summary, latency, requests)
    local totals = { ok = 0, client_errors = 0, server_errors = 0, created = 0 }
    for _, thread in ipairs(threads) do
        for name, _ in pairs(totals) do
            totals[name] = totals[name] + (thread:get(name) or 0)
        end
    end
    io.write(string.format("lua: 2xx %d, 4xx %d, 5xx %d, created %d\n",
        totals.ok, totals.client_errors, totals.server_errors, totals.created))
end
