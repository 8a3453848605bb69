/* standin_opapi.c: the ACL STAND-IN's libopapi.so (a test double, see standin.h): the
 * ACLNN operators the NPU backend calls, run on host memory on the stream's worker thread.
 * (The operator set grows with backends/npu; the runtime part came first.) */
#include "standin_nn.h"

/* CANN's operator library depends on libnnopbase; so does this one */
STANDIN_API int aclStandinOpapiVersion(void) { return 1; }
