/* accel_stream.c: default and current streams (accel_stream.h). */
#include <pthread.h>

#include "accel_stream.h"

static void *default_streams[ACCEL_MAX_DEVICES];
static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static __thread void *thread_streams[ACCEL_MAX_DEVICES];

void *accel_default_stream(const accel_driver *d, int device) {
    if (d->bind(device)) return NULL; /* checks the device */
    if (device < 0 || device >= ACCEL_MAX_DEVICES)
        return mt_error_null(MT_ERR_RUNTIME, "Invalid device id");
    pthread_mutex_lock(&mu);
    if (!default_streams[device] && d->stream_create(&default_streams[device], -1)) {
        default_streams[device] = NULL;
        pthread_mutex_unlock(&mu);
        return NULL;
    }
    void *s = default_streams[device];
    pthread_mutex_unlock(&mu);
    return s;
}

void *accel_current_stream(const accel_driver *d, int device) {
    if (device < 0 || device >= ACCEL_MAX_DEVICES)
        return mt_error_null(MT_ERR_RUNTIME, "Invalid device id");
    if (thread_streams[device]) return thread_streams[device];
    return accel_default_stream(d, device);
}

void accel_set_current_stream(int device, void *s) {
    if (device >= 0 && device < ACCEL_MAX_DEVICES) thread_streams[device] = s;
}

void accel_sync_default_streams(const accel_driver *d) {
    for (int dev = 0; dev < ACCEL_MAX_DEVICES; dev++) {
        pthread_mutex_lock(&mu);
        void *s = default_streams[dev];
        pthread_mutex_unlock(&mu);
        if (s && d->bind(dev) == 0) d->stream_sync(s);
    }
}
