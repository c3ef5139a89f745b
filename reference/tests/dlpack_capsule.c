/*
 * dlpack_capsule.c: the destructor of the capsules dlpack_peers.py makes for refarray's
 * tensors, in C because CPython calls it with an exception possibly pending (a consumer that
 * refused the tensor), which no Python callback may run under. A capsule still named as
 * made was never consumed and so still owns its tensor: its deleter runs here; a consumed
 * capsule ("used_...") owns nothing (DLPack's Python specification, "Producer").
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>

#include "devspec_dlpack.h"

PyMODINIT_FUNC PyInit_dlpack_capsule(void);

__attribute__((visibility("default"))) void dlpack_capsule_destructor(PyObject *capsule);

void dlpack_capsule_destructor(PyObject *capsule)
{
    PyObject *type, *value, *traceback;
    PyErr_Fetch(&type, &value, &traceback);
    if (PyCapsule_IsValid(capsule, "dltensor_versioned")) {
        DLManagedTensorVersioned *t = PyCapsule_GetPointer(capsule, "dltensor_versioned");
        if (t && t->deleter) t->deleter(t);
    } else if (PyCapsule_IsValid(capsule, "dltensor")) {
        DLManagedTensor *t = PyCapsule_GetPointer(capsule, "dltensor");
        if (t && t->deleter) t->deleter(t);
    }
    PyErr_Restore(type, value, traceback);
}

/* An importable module too, so that the file is loadable either way; it defines nothing. */
static struct PyModuleDef module = {
    PyModuleDef_HEAD_INIT, "dlpack_capsule", NULL, -1, NULL, NULL, NULL, NULL, NULL};

PyMODINIT_FUNC PyInit_dlpack_capsule(void)
{
    return PyModule_Create(&module);
}
