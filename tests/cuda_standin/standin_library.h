/* standin_library.h: how the cuBLAS and cuSOLVER stand-ins queue their work on a stream of the
 * driver stand-in, as the real libraries launch kernels: a call checks its arguments and returns,
 * and its arithmetic runs later, in the stream's order, so its results (devInfo too) are there
 * only once the stream got that far. Each call's arguments are copied into the queued operation
 * (scalars such as alpha by value, as cuBLAS reads host-pointer scalars before it returns). */
#ifndef MT_STANDIN_LIBRARY_H
#define MT_STANDIN_LIBRARY_H

#include <dlfcn.h>
#include <stddef.h>

typedef int (*standin_launch_host_fn)(void *stream, void (*run)(void *), const void *arg, size_t n,
                                      const char *what);

/* run(a copy of the n bytes at arg) queued on `stream` (NULL: the legacy default stream); 0, or
 * the driver's status. The driver is the libcuda.so.1 the process already loaded. */
static inline int standin_queue(void *stream, void (*run)(void *), const void *arg, size_t n,
                                const char *what) {
    static standin_launch_host_fn launch;
    if (!launch) {
        void *drv = dlopen("libcuda.so.1", RTLD_NOW | RTLD_NOLOAD);
        if (drv) *(void **)&launch = dlsym(drv, "standin_launch_host");
        if (!launch) return 3; /* CUDA_ERROR_NOT_INITIALIZED: no stand-in driver */
    }
    return launch(stream, run, arg, n, what);
}

#endif
