/* dl.c — loading a library on first use (dl.h): one dlopen per library,
 * under a lock, its answer kept. */
#define _GNU_SOURCE
#include "util/dl.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;

int rig__dl_load(rig__dl *lib, char *why, size_t cap)
{
    pthread_mutex_lock(&lock);
    if (lib->state == 0) {
        /* RTLD_LOCAL: its symbols stay out of the global namespace, so
         * nothing else in the process binds to them by accident. */
        void *h = dlopen(lib->soname, RTLD_NOW | RTLD_LOCAL);
        if (!h) {
            const char *e = dlerror();
            snprintf(lib->error, sizeof lib->error, "%s could not be loaded (install %s): %s",
                     lib->soname, lib->package, e ? e : "unknown error");
            lib->state = -1;
        } else {
            lib->state = 1;
            for (size_t i = 0; i < lib->n; i++) {
                void *f = dlsym(h, lib->names[i]);
                if (!f) {
                    snprintf(lib->error, sizeof lib->error, "%s has no %s: it is too old",
                             lib->soname, lib->names[i]);
                    lib->state = -1;
                    break;
                }
                lib->slots[i] = f;
            }
            /* the handle stays open for the life of the process */
        }
    }
    int rc = lib->state == 1 ? 0 : -1;
    if (rc != 0 && why && cap)
        snprintf(why, cap, "%s", lib->error);
    pthread_mutex_unlock(&lock);
    return rc;
}
