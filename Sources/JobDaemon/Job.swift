/// One unit of work: an identifier and a payload whose checksum the job computes.
struct Job: Sendable {
    /// The job's number, counted from 1 in the order jobs are accepted.
    let id: Int
    /// The data the job works on.
    let payload: [UInt8]

    /// Creates job `id` with a payload derived from its number.
    init(id: Int) {
        self.id = id
        payload = (0..<256).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ id) }
    }

    /// A checksum of the payload, computed the slow way: the CPU part of the job.
    func checksum(rounds: Int = 200) -> UInt32 {
        var hash: UInt32 = 2_166_136_261
        for _ in 0..<rounds {
            for byte in payload {
                hash = (hash ^ UInt32(byte)) &* 16_777_619
            }
        }
        return hash
    }
}
