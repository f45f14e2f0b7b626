// See include/CKeptResult.h.

#include "CKeptResult.h"

__thread void *c_kept_result = 0;
