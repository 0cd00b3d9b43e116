"""The CPython extension module around a generated C kernel (see :mod:`symbody.codegen.c_call`).

:func:`extension_source` puts the kernel and a small module in one C file: its
function ``evaluate(t, <vectors>..., out=None)`` (``METH_FASTCALL``) reads each
vector through the buffer protocol -- a float64 vector is copied as it is, any
other sequence of real numbers converted item by item -- into one input array on
the stack, calls the kernel once, and returns new arrays (made by ``numpy.empty``,
which ``configure(empty, error)`` hands over when the module is loaded) or the
arrays given in ``out``.  numpy's C API is not used: the module builds against
Python's headers alone.  Every argument is checked, and a failure is a Python
exception with the argument's name.

Example:
    >>> from symbody.codegen.c_call import Kernel
    >>> src = extension_source(Kernel("k", "int k(const double *in, double *o) { return 0; }", (), ((1,),)), "m")
    >>> src.startswith("#define PY_SSIZE_T_CLEAN")
    True
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from .c import c_string

if TYPE_CHECKING:
    from .c_call import Kernel

#: inputs up to this many doubles are gathered in a stack array, larger ones in a heap array
STACK_DOUBLES = 4096


def extension_source(kernel: Kernel, module: str) -> str:
    """One C file: ``#include <Python.h>``, the kernel, then the module ``module`` around it."""
    slots = kernel.slots
    n_in = 1 + sum(n for _, n, _ in slots)
    offsets, k = [], 1
    for _, n, _ in slots:
        offsets.append(k)
        k += n
    shapes = kernel.shapes
    ndim_max = max([1, *(len(s) for s in shapes)])
    dims = ", ".join("{" + ", ".join(str(d) for d in (*s, *([0] * (ndim_max - len(s))))) + "}" for s in shapes)
    names = ["t", *(name for name, _, _ in slots), "out"]
    q_slot = next((i for i, (name, _, _) in enumerate(slots) if name == "q"), -1)
    outs = ", ".join(f"data[{i}]" for i in range(len(shapes)))
    table = {
        "MODULE": module,
        "ENTRY": kernel.entry,
        "N_SLOT": str(len(slots)),
        "N_SLOT1": str(max(1, len(slots))),
        "N_OUT": str(len(shapes)),
        "N_IN": str(n_in),
        "NDIM": str(ndim_max),
        "SLOT_NAMES": ", ".join(c_string(name) for name, _, _ in slots) or "NULL",
        "SLOT_LENGTHS": ", ".join(str(n) for _, n, _ in slots) or "0",
        "SLOT_OPTIONAL": ", ".join(str(int(opt)) for _, _, opt in slots) or "0",
        "SLOT_OFFSETS": ", ".join(map(str, offsets)) or "0",
        "OUT_NDIM": ", ".join(str(len(s)) for s in shapes),
        "OUT_DIMS": dims,
        "ARG_NAMES": ", ".join(c_string(n) for n in names),
        "N_ARG": str(len(names)),
        "FAILURE": c_string(kernel.failure + (" at q = %S" if q_slot >= 0 else "")),
        "Q_ARG": f"arg[{1 + q_slot}] /* q */" if q_slot >= 0 else "NULL",
        "SINGLE": str(int(kernel.single)),
        "KERNEL_CALL": f"{kernel.entry}(in, {outs})",
        "IN_DECL": (
            f"double in_stack[{n_in}];\n    double *in = in_stack;"
            if n_in <= STACK_DOUBLES
            else f"double *in = PyMem_Malloc({n_in} * sizeof(double));\n    if (!in) return PyErr_NoMemory();"
        ),
        "IN_FREE": "" if n_in <= STACK_DOUBLES else "PyMem_Free(in);",
    }
    text = _MODULE
    for key, value in table.items():
        text = text.replace(f"@{key}@", value)
    return _HEAD + kernel.source + text


_HEAD = """#define PY_SSIZE_T_CLEAN
#include <Python.h> /* first, as Python's documentation asks */
#include <string.h>

"""

_MODULE = r"""

/* ---------------------------------------------------------------------------------------------
 * CPython module @MODULE@: evaluate(t, <vectors>..., out=None) calls @ENTRY@ once.
 * ------------------------------------------------------------------------------------------- */
#define SB_N_SLOT @N_SLOT@
#define SB_N_OUT @N_OUT@
#define SB_N_ARG @N_ARG@
#define SB_SINGLE @SINGLE@ /* 1: one output, returned (and given in out) as an array, not a tuple */
static const char *const sb_slot_name[@N_SLOT1@] = {@SLOT_NAMES@};
static const Py_ssize_t sb_slot_length[@N_SLOT1@] = {@SLOT_LENGTHS@};
static const int sb_slot_optional[@N_SLOT1@] = {@SLOT_OPTIONAL@};
static const Py_ssize_t sb_slot_offset[@N_SLOT1@] = {@SLOT_OFFSETS@};
static const int sb_out_ndim[SB_N_OUT] = {@OUT_NDIM@};
static const Py_ssize_t sb_out_dims[SB_N_OUT][@NDIM@] = {@OUT_DIMS@};
static const char *const sb_arg_name[SB_N_ARG] = {@ARG_NAMES@};

static PyObject *sb_empty = NULL;           /* numpy.empty, given by configure() */
static PyObject *sb_error = NULL;           /* the exception of a failed evaluation */
static PyObject *sb_shape[SB_N_OUT] = {0};  /* the shape tuple of each output */

/* A float64 buffer format in native byte order ("d", "@d", "=d", "<d" on little-endian hosts). */
static int sb_is_native_double(const char *f)
{
    if (f == NULL) return 1; /* no format: unsigned bytes, refused by the item size */
    if (*f == '@' || *f == '=' || (*f == '<' && PY_LITTLE_ENDIAN) || (*f == '>' && !PY_LITTLE_ENDIAN)) ++f;
    return f[0] == 'd' && f[1] == '\0';
}

/* Copy vector argument k into the input array (zeros for an optional one left out). 0 or -1 with an exception. */
static int sb_read(PyObject *x, int k, double *dst)
{
    const char *name = sb_slot_name[k];
    const Py_ssize_t n = sb_slot_length[k];
    if (x == NULL || x == Py_None) {
        if (sb_slot_optional[k]) {
            memset(dst, 0, (size_t)n * sizeof(double));
            return 0;
        }
        PyErr_Format(PyExc_ValueError, "%s is required (%zd values)", name, n);
        return -1;
    }
    if (PyObject_CheckBuffer(x)) {
        Py_buffer b;
        if (PyObject_GetBuffer(x, &b, PyBUF_RECORDS_RO) == 0) {
            const int is_double = b.itemsize == 8 && sb_is_native_double(b.format);
            const int is_complex = b.format != NULL && strchr(b.format, 'Z') != NULL;
            int status = 1; /* 1: convert item by item below */
            if (b.ndim != 1) {
                PyErr_Format(PyExc_ValueError, "%s must be a vector of %zd values, not an array of %d dimensions",
                             name, n, b.ndim);
                status = -1;
            } else if (is_complex) {
                PyErr_Format(PyExc_TypeError, "%s has complex values", name);
                status = -1;
            } else if (b.shape[0] != n) {
                PyErr_Format(PyExc_ValueError, "%s has %zd values, the model has %zd", name, b.shape[0], n);
                status = -1;
            } else if (is_double) {
                const char *p = (const char *)b.buf;
                if (b.strides == NULL || b.strides[0] == 8) memcpy(dst, p, (size_t)n * sizeof(double));
                else for (Py_ssize_t i = 0; i < n; ++i) memcpy(dst + i, p + i * b.strides[0], sizeof(double));
                status = 0;
            }
            PyBuffer_Release(&b);
            if (status <= 0) return status;
        } else {
            PyErr_Clear(); /* not a strided buffer: read it as a sequence */
        }
    }
    if (!PySequence_Check(x) || PyUnicode_Check(x) || PyBytes_Check(x) || PyByteArray_Check(x)) {
        PyErr_Format(PyExc_ValueError, "%s must be a sequence of %zd values, not %.100s", name, n, Py_TYPE(x)->tp_name);
        return -1;
    }
    PyObject *seq = PySequence_Fast(x, "a sequence is expected");
    if (seq == NULL) return -1;
    const Py_ssize_t m = PySequence_Fast_GET_SIZE(seq);
    if (m != n) {
        Py_DECREF(seq);
        PyErr_Format(PyExc_ValueError, "%s has %zd values, the model has %zd", name, m, n);
        return -1;
    }
    PyObject **items = PySequence_Fast_ITEMS(seq);
    for (Py_ssize_t i = 0; i < n; ++i) {
        PyObject *v = items[i];
        const int text = PyUnicode_Check(v) || PyBytes_Check(v) || PyByteArray_Check(v) || PyComplex_Check(v);
        const double d = text ? -1.0 : PyFloat_AsDouble(v);
        if (text || (d == -1.0 && PyErr_Occurred())) {
            PyErr_Clear();
            PyErr_Format(PyExc_TypeError, "%s[%zd] is not a real number", name, i);
            Py_DECREF(seq);
            return -1;
        }
        dst[i] = d;
    }
    Py_DECREF(seq);
    return 0;
}

static Py_ssize_t sb_out_size(int k)
{
    Py_ssize_t n = 1;
    for (int d = 0; d < sb_out_ndim[k]; ++d) n *= sb_out_dims[k][d];
    return n;
}

/* The output arrays: new ones, or those of `out` (checked). New references in res[], data pointers in data[]. */
static int sb_outputs(PyObject *out, PyObject **res, double **data)
{
    Py_buffer b;
    if (out == NULL || out == Py_None) {
        for (int k = 0; k < SB_N_OUT; ++k) {
            res[k] = PyObject_CallOneArg(sb_empty, sb_shape[k]);
            if (res[k] == NULL || PyObject_GetBuffer(res[k], &b, PyBUF_WRITABLE | PyBUF_C_CONTIGUOUS) != 0) return -1;
            data[k] = (double *)b.buf; /* the array owns its memory and is held in res[k] */
            PyBuffer_Release(&b);
        }
        return 0;
    }
    if (!SB_SINGLE && (!(PyTuple_Check(out) || PyList_Check(out)) || PySequence_Size(out) != SB_N_OUT)) {
        PyErr_Format(PyExc_TypeError, "out must be a tuple of %d arrays", SB_N_OUT);
        return -1;
    }
    for (int k = 0; k < SB_N_OUT; ++k) {
        PyObject *a = SB_SINGLE ? out : PySequence_Fast_GET_ITEM(out, k);
        int ok = PyObject_GetBuffer(a, &b, PyBUF_WRITABLE | PyBUF_C_CONTIGUOUS | PyBUF_FORMAT) == 0;
        if (!ok) PyErr_Clear();
        else {
            ok = b.itemsize == 8 && sb_is_native_double(b.format) && b.ndim == sb_out_ndim[k];
            for (int d = 0; ok && d < b.ndim; ++d) ok = b.shape[d] == sb_out_dims[k][d];
            data[k] = (double *)b.buf;
            PyBuffer_Release(&b);
        }
        if (!ok) {
            if (SB_SINGLE)
                PyErr_Format(PyExc_TypeError, "out must be a writable C-contiguous float64 array of shape %S",
                             sb_shape[k]);
            else
                PyErr_Format(PyExc_TypeError, "out[%d] must be a writable C-contiguous float64 array of shape %S",
                             k, sb_shape[k]);
            return -1;
        }
        Py_INCREF(a);
        res[k] = a;
    }
    for (int i = 0; i < SB_N_OUT; ++i) { /* results written into overlapping arrays would be wrong */
        for (int j = 0; j < i; ++j) {
            const Py_ssize_t ni = sb_out_size(i), nj = sb_out_size(j);
            if (ni > 0 && nj > 0 && data[i] < data[j] + nj && data[j] < data[i] + ni) {
                PyErr_Format(PyExc_ValueError, "out[%d] and out[%d] overlap", j, i);
                return -1;
            }
        }
    }
    return 0;
}

static PyObject *sb_evaluate(PyObject *self, PyObject *const *args, Py_ssize_t nargsf, PyObject *kwnames)
{
    (void)self;
    PyObject *arg[SB_N_ARG] = {0};
    const Py_ssize_t nargs = PyVectorcall_NARGS(nargsf);
    if (nargs > SB_N_ARG - 1) { /* out only by keyword */
        PyErr_Format(PyExc_TypeError, "takes at most %d positional arguments (%zd given)", SB_N_ARG - 1, nargs);
        return NULL;
    }
    for (Py_ssize_t i = 0; i < nargs; ++i) arg[i] = args[i];
    const Py_ssize_t nkw = kwnames ? PyTuple_GET_SIZE(kwnames) : 0;
    for (Py_ssize_t j = 0; j < nkw; ++j) {
        PyObject *key = PyTuple_GET_ITEM(kwnames, j);
        int k = 0;
        while (k < SB_N_ARG && PyUnicode_CompareWithASCIIString(key, sb_arg_name[k]) != 0) ++k;
        if (k == SB_N_ARG) {
            PyErr_Format(PyExc_TypeError, "unexpected keyword argument %R", key);
            return NULL;
        }
        if (arg[k] != NULL) {
            PyErr_Format(PyExc_TypeError, "got multiple values for argument '%s'", sb_arg_name[k]);
            return NULL;
        }
        arg[k] = args[nargs + j];
    }
    if (sb_empty == NULL) {
        PyErr_SetString(PyExc_RuntimeError, "the module is not configured (configure(numpy.empty, error))");
        return NULL;
    }
    if (arg[0] == NULL) {
        PyErr_SetString(PyExc_TypeError, "missing required argument 't'");
        return NULL;
    }
    @IN_DECL@
    PyObject *result = NULL, *res[SB_N_OUT] = {0};
    double *data[SB_N_OUT] = {0};
    in[0] = PyFloat_AsDouble(arg[0]);
    if (in[0] == -1.0 && PyErr_Occurred()) {
        PyErr_Format(PyExc_TypeError, "t must be a real number, not %.100s", Py_TYPE(arg[0])->tp_name);
        goto done;
    }
    for (int k = 0; k < SB_N_SLOT; ++k)
        if (sb_read(arg[1 + k], k, in + sb_slot_offset[k]) != 0) goto done;
    if (sb_outputs(arg[SB_N_ARG - 1], res, data) != 0) goto done;
    const int status = @KERNEL_CALL@;
    if (status != 0) {
        PyErr_Format(sb_error ? sb_error : PyExc_RuntimeError, @FAILURE@, status, @Q_ARG@);
        goto done;
    }
    if (SB_SINGLE) { /* the output itself, not a tuple */
        result = res[0];
        res[0] = NULL;
        goto done;
    }
    result = PyTuple_New(SB_N_OUT);
    if (result == NULL) goto done;
    for (int k = 0; k < SB_N_OUT; ++k) {
        PyTuple_SET_ITEM(result, k, res[k]); /* steals the reference */
        res[k] = NULL;
    }
done:
    for (int k = 0; k < SB_N_OUT; ++k) Py_XDECREF(res[k]);
    @IN_FREE@
    return result;
}

static PyObject *sb_configure(PyObject *self, PyObject *args)
{
    (void)self;
    PyObject *empty, *error;
    if (!PyArg_ParseTuple(args, "OO", &empty, &error)) return NULL;
    for (int k = 0; k < SB_N_OUT; ++k) {
        if (sb_shape[k] != NULL) continue;
        sb_shape[k] = PyTuple_New(sb_out_ndim[k]);
        if (sb_shape[k] == NULL) return NULL;
        for (int d = 0; d < sb_out_ndim[k]; ++d) {
            PyObject *v = PyLong_FromSsize_t(sb_out_dims[k][d]);
            if (v == NULL) return NULL;
            PyTuple_SET_ITEM(sb_shape[k], d, v);
        }
    }
    Py_INCREF(empty);
    Py_XSETREF(sb_empty, empty);
    Py_INCREF(error);
    Py_XSETREF(sb_error, error);
    Py_RETURN_NONE;
}

static PyMethodDef sb_methods[] = {
    {"evaluate", (PyCFunction)(void (*)(void))sb_evaluate, METH_FASTCALL | METH_KEYWORDS,
     "evaluate(t, <vectors>..., out=None): the outputs of the kernel."},
    {"configure", sb_configure, METH_VARARGS, "configure(empty, error): numpy.empty and the exception to raise."},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef sb_module = {PyModuleDef_HEAD_INIT, "@MODULE@", NULL, -1, sb_methods, NULL, NULL, NULL, NULL};

PyMODINIT_FUNC PyInit_@MODULE@(void) { return PyModule_Create(&sb_module); }
"""
