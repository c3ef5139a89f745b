/*
 * devspec-adapter-host: serves an in-process adapter (a shared object exporting
 * devspec_adapter_call and devspec_adapter_free) over stdin/stdout, one JSON request and one
 * JSON reply per line: the out-of-process transport of spec/protocol.md. The runner starts
 * it, restarts it after a crash and kills it after a timeout, so the adapter runs isolated.
 *
 *   devspec-adapter-host SHIM.so
 *
 * stdout carries only replies: before loading the adapter, the host keeps the real stdout
 * for itself and points file descriptor 1 at stderr, so whatever the library prints lands
 * in the log. Exit status: 0 at end of input or after bye, 1 when a reply cannot be
 * written, 2 for a usage error, 3 when the shared object cannot be loaded.
 */
#define _POSIX_C_SOURCE 200809L

#include "devspec_shim.h"

#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static void usage(FILE *to)
{
    fputs("usage: devspec-adapter-host SHIM.so\n"
          "Serves the in-process devspec adapter SHIM.so over stdin/stdout (JSON lines).\n",
          to);
}

int main(int argc, char **argv)
{
    if (argc == 2 && (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0)) {
        usage(stdout);
        return 0;
    }
    if (argc != 2 || argv[1][0] == '\0') {
        usage(stderr);
        return 2;
    }
    int proto_fd = dup(STDOUT_FILENO);
    FILE *out = proto_fd >= 0 ? fdopen(proto_fd, "w") : NULL;
    if (out == NULL || dup2(STDERR_FILENO, STDOUT_FILENO) < 0) {
        perror("devspec-adapter-host: cannot set up the reply stream");
        return 3;
    }
    /* A path without a slash would make dlopen search the library path; the argument
     * names a file, as the user wrote it. */
    char *path = argv[1];
    char *owned = NULL;
    if (strchr(path, '/') == NULL) {
        owned = malloc(strlen(path) + 3);
        if (owned == NULL) return 3;
        strcpy(owned, "./");
        strcat(owned, path);
        path = owned;
    }
    void *so = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    if (so == NULL) {
        fprintf(stderr, "devspec-adapter-host: cannot load '%s': %s\n", argv[1], dlerror());
        free(owned);
        return 3;
    }
    devspec_adapter_call_fn call;
    devspec_adapter_free_fn release;
    /* dlsym returns an object pointer; POSIX guarantees it converts to a function pointer. */
    *(void **)(&call) = dlsym(so, "devspec_adapter_call");
    *(void **)(&release) = dlsym(so, "devspec_adapter_free");
    if (call == NULL || release == NULL) {
        fprintf(stderr,
                "devspec-adapter-host: '%s' is not a devspec adapter: it does not export "
                "devspec_adapter_call and devspec_adapter_free\n",
                argv[1]);
        dlclose(so);
        free(owned);
        return 3;
    }
    int status = ds_shim_serve(stdin, out, call, release);
    /* End the session so that the library closes cleanly (a no-op after bye). */
    static const char bye[] = "{\"id\":0,\"op\":\"bye\"}";
    release(call(bye, sizeof bye - 1, NULL));
    if (fclose(out) != 0 && status == 0) status = 1;
    /* The adapter stays loaded until exit: unloading it would also unload what it loaded
     * (an OpenCL ICD loader, its drivers), whose process-lifetime state leak checkers
     * could then no longer attribute. */
    free(owned);
    return status;
}
