/*
 * refarray_test: a protocol round trip for every op of spec/protocol.md on refarray's
 * adapter, in either transport. Expected values follow refarray.h (cpu is listed first; the
 * built-in default is gpu:0 when there is one; to_device to the array's own device returns
 * the array itself; ...) and the standard where refarray follows it. Runs with one device
 * (cpu) or more (cpu, gpu:0, gpu:1, ... on OpenCL); the multi-device steps skip with a reason
 * on one. An op the adapter answers NotImplementedError for is reported as a skipped part.
 *
 *   refarray_test inproc devspec_adapter_refarray.so
 *   refarray_test host devspec-adapter-host devspec_adapter_refarray.so
 */
#define _POSIX_C_SOURCE 200809L /* access */
#include "driver.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define A(text) "\"op\":\"" text

/* Reads the array bound to $array and compares it with expect (JSON text). */
#define READS(d, name, array, expect)                                                              \
    OK(d, name, NULL, expect, A("array.read\",\"args\":{\"array\":$%s}"), array)

/* The array bound to $array is on the device bound to $device: describe it, bind its device
 * field, and compare that with device.equal (the check named `name`). */
#define ON_DEVICE(d, name, array, device) on_device(d, __FILE__, __LINE__, name, array, device)
/* The request (a format and its values) is answered with an error that lacks `lacks`, from
 * `origin` (NULL: any): the check named `name`. */
#define LACKS(d, name, lacks, origin, ...)                                                         \
    lacking(drv_send(d, __FILE__, __LINE__, __VA_ARGS__), __FILE__, __LINE__, name, lacks, origin)
static void lacking(cJSON *reply, const char *file, int line, const char *name, const char *lacks,
                    const char *origin)
{
    const cJSON *err = cJSON_GetObjectItemCaseSensitive(reply, "error");
    const cJSON *l = cJSON_GetObjectItemCaseSensitive(err, "lacks");
    const cJSON *o = cJSON_GetObjectItemCaseSensitive(err, "origin");
    drv_check_at(file, line,
                 cJSON_IsString(l) && !strcmp(l->valuestring, lacks) &&
                     (!origin || (cJSON_IsString(o) && !strcmp(o->valuestring, origin))),
                 "%s", name);
    cJSON_Delete(reply);
}

static void on_device(drv *d, const char *file, int line, const char *name, const char *array,
                      const char *device)
{
    char described[64], dev[64], what[160];
    snprintf(described, sizeof described, "%s_described", array);
    snprintf(dev, sizeof dev, "%s_device", array);
    snprintf(what, sizeof what, "describe $%s", array);
    drv_ok(d, file, line, what, described, NULL, A("array.describe\",\"args\":{\"array\":$%s}"),
           array);
    drv_bind_field(d, dev, described, "device");
    drv_ok(d, file, line, name, NULL, "true", A("device.equal\",\"args\":{\"a\":$%s,\"b\":$%s}"),
           dev, device);
}

static void devices(drv *d, int ndev)
{
    OK(d, "device.describe cpu", NULL, "{\"str\":\"cpu\",\"type\":\"cpu\",\"index\":0}",
       A("device.describe\",\"args\":{\"device\":$cpu}"));
    OK(d, "device.parse cpu:0", "c0", NULL, A("device.parse\",\"args\":{\"text\":\"cpu:0\"}"));
    OK(d, "cpu:0 equals cpu (spec/decisions.md: no index means index 0)", NULL, "true",
       A("device.equal\",\"args\":{\"a\":$c0,\"b\":$cpu}"));
    OK(d, "device.parse gpu:1 (syntax only, not availability)", "g1", NULL,
       A("device.parse\",\"args\":{\"text\":\"gpu:1\"}"));
    OK(d, "device.describe gpu:1", NULL, "{\"str\":\"gpu:1\",\"type\":\"gpu\",\"index\":1}",
       A("device.describe\",\"args\":{\"device\":$g1}"));
    OK(d, "cpu does not equal gpu:1", NULL, "false",
       A("device.equal\",\"args\":{\"a\":$g1,\"b\":$cpu}"));
    ERR(d, "DRAFT-STR-1: upper-case GPU:0 is refused", "ValueError", "library",
        A("device.parse\",\"args\":{\"text\":\"GPU:0\"}"));
    OK(d, "device.describe of the string gpu:0 (not necessarily available)", NULL,
       "{\"str\":\"gpu:0\",\"type\":\"gpu\",\"index\":0}",
       A("device.describe\",\"args\":{\"device\":{\"str\":\"gpu:0\"}}"));
    ERR(d, "device.describe of the string GPU:0 raises", "ValueError", "library",
        A("device.describe\",\"args\":{\"device\":{\"str\":\"GPU:0\"}}"));
    OK(d, "device.equal of the strings cpu and cpu:0", NULL, "true",
       A("device.equal\",\"args\":{\"a\":{\"str\":\"cpu\"},\"b\":{\"str\":\"cpu:0\"}}"));
    ERR(d, "the empty string is refused", "ValueError", "library",
        A("device.parse\",\"args\":{\"text\":\"\"}"));
    ERR(d, "an unknown type is refused", "ValueError", "library",
        A("device.parse\",\"args\":{\"text\":\"npu:0\"}"));
    OK(d, "device.from_type_index gpu 2", "t2", NULL,
       A("device.from_type_index\",\"args\":{\"type\":\"gpu\",\"index\":2}"));
    OK(d, "it describes as gpu:2", NULL, "{\"str\":\"gpu:2\",\"type\":\"gpu\",\"index\":2}",
       A("device.describe\",\"args\":{\"device\":$t2}"));
    ERR(d, "from_type_index refuses tpu, no OneFlow device type", "ValueError", "library",
        A("device.from_type_index\",\"args\":{\"type\":\"tpu\",\"index\":2}"));
    ERR(d, "from_type_index refuses a type with an index", "ValueError", "library",
        A("device.from_type_index\",\"args\":{\"type\":\"gpu:0\",\"index\":1}"));
    ERR(d, "from_type_index refuses a negative index", "ValueError", "library",
        A("device.from_type_index\",\"args\":{\"type\":\"cpu\",\"index\":-1}"));
    OK(d, "device.from_ordinal 1", "o1", NULL, A("device.from_ordinal\",\"args\":{\"ordinal\":1}"));
    OK(d, "ordinal 1 is gpu:1", NULL, "true", A("device.equal\",\"args\":{\"a\":$o1,\"b\":$g1}"));
    ERR(d, "a negative ordinal is refused", "ValueError", "library",
        A("device.from_ordinal\",\"args\":{\"ordinal\":-1}"));

    char expect[64];
    snprintf(expect, sizeof expect, "[%s]",
             ndev == 1   ? "\"*\""
             : ndev == 2 ? "\"*\",\"*\""
                         : "\"*\",\"*\",\"*\"");
    if (ndev <= 3)
        OK(d, "info.devices lists every device", "list", expect, A("info.devices\""));
    else
        OK(d, "info.devices lists every device", "list", NULL, A("info.devices\""));
    cJSON *list = cJSON_Parse(drv_bound(d, "list") ? drv_bound(d, "list") : "[]");
    drv_bind(d, "first", cJSON_GetArrayItem(list, 0));
    cJSON_Delete(list);
    OK(d, "the first is cpu", NULL, "true", A("device.equal\",\"args\":{\"a\":$first,\"b\":$cpu}"));
    OK(d, "info.default_device", "def", NULL, A("info.default_device\""));
    OK(d, "it is hello's default device", NULL, "true",
       A("device.equal\",\"args\":{\"a\":$def,\"b\":$D0}"));
    OK(d, "info.default_dtypes on cpu", NULL,
       "{\"real floating\":\"float64\",\"complex floating\":\"complex128\","
       "\"integral\":\"int64\",\"indexing\":\"int64\"}",
       A("info.default_dtypes\",\"args\":{\"device\":$cpu}"));
    OK(d, "info.dtypes on cpu, kind integral, sorted by name", NULL,
       "[\"int16\",\"int32\",\"int64\",\"int8\",\"uint16\",\"uint32\",\"uint64\",\"uint8\"]",
       A("info.dtypes\",\"args\":{\"device\":$cpu,\"kind\":\"integral\"}"));
    OK(d, "info.dtypes with a list of kinds", NULL, "[\"bool\",\"complex128\",\"complex64\"]",
       A("info.dtypes\",\"args\":{\"device\":$cpu,\"kind\":[\"bool\",\"complex floating\"]}"));
    OK(d, "info.dtypes on cpu: all 13", NULL,
       "[\"bool\",\"complex128\",\"complex64\",\"float32\",\"float64\",\"int16\",\"int32\","
       "\"int64\",\"int8\",\"uint16\",\"uint32\",\"uint64\",\"uint8\"]",
       A("info.dtypes\",\"args\":{\"device\":{\"str\":\"cpu\"}}"));
    ERR(d, "info.dtypes with an unknown kind", "ValueError", "library",
        A("info.dtypes\",\"args\":{\"kind\":\"decimal\"}"));
}

static void fft_freq(drv *d);

static void creation(drv *d)
{
    OK(d, "zeros float32 on cpu", "z", NULL,
       A("array.create\",\"args\":{\"fn\":\"zeros\",\"shape\":[2,3],\"dtype\":\"float32\","
         "\"device\":$cpu}"));
    READS(d, "zeros reads as zeros", "z",
          "{\"dtype\":\"float32\",\"shape\":[2,3],\"data\":[0,0,0,0,0,0]}");
    OK(d, "zeros is on cpu (describe)", "zd", "{\"dtype\":\"float32\",\"shape\":[2,3]}",
       A("array.describe\",\"args\":{\"array\":$z}"));
    drv_bind_field(d, "zdev", "zd", "device");
    OK(d, "DEV-CREATE-1: the device is the one asked for", NULL, "true",
       A("device.equal\",\"args\":{\"a\":$zdev,\"b\":$cpu}"));
    OK(d, "ones int8", "o", NULL,
       A("array.create\",\"args\":{\"fn\":\"ones\",\"shape\":[2],\"dtype\":\"int8\",\"device\":$"
         "cpu}"));
    READS(d, "ones reads as ones", "o", "{\"dtype\":\"int8\",\"shape\":[2],\"data\":[1,1]}");
    OK(d, "empty with a zero extent", "e", NULL,
       A("array.create\",\"args\":{\"fn\":\"empty\",\"shape\":[0],\"device\":$cpu}"));
    READS(d, "it has no elements", "e", "{\"dtype\":\"float64\",\"shape\":[0],\"data\":[]}");
    OK(d, "full int32 7", "f", NULL,
       A("array.create\",\"args\":{\"fn\":\"full\",\"shape\":[2],\"fill_value\":7,\"dtype\":"
         "\"int32\",\"device\":$cpu}"));
    READS(d, "full reads 7s", "f", "{\"dtype\":\"int32\",\"shape\":[2],\"data\":[7,7]}");
    OK(d, "full with a float fill defaults to float64", "ff", NULL,
       A("array.create\",\"args\":{\"fn\":\"full\",\"shape\":[1],\"fill_value\":2.5,\"device\":$"
         "cpu}"));
    READS(d, "it reads 2.5 as float64", "ff",
          "{\"dtype\":\"float64\",\"shape\":[1],\"data\":[2.5]}");
    OK(d, "full with a bool fill is bool", "fb", NULL,
       A("array.create\",\"args\":{\"fn\":\"full\",\"shape\":[],\"fill_value\":true,\"device\":$"
         "cpu}"));
    READS(d, "it reads true", "fb", "{\"dtype\":\"bool\",\"shape\":[],\"data\":[true]}");
    OK(d, "arange(5)", "a5", NULL,
       A("array.create\",\"args\":{\"fn\":\"arange\",\"start\":5,\"device\":$cpu}"));
    READS(d, "arange(5) is int64 0..4", "a5",
          "{\"dtype\":\"int64\",\"shape\":[5],\"data\":[0,1,2,3,4]}");
    OK(d, "arange(1, 2, 0.25)", "af", NULL,
       A("array.create\",\"args\":{\"fn\":\"arange\",\"start\":1,\"stop\":2,\"step\":0.25,"
         "\"device\":$cpu}"));
    READS(d, "arange(1, 2, 0.25) is float64 1..1.75", "af",
          "{\"dtype\":\"float64\",\"shape\":[4],\"data\":[1,1.25,1.5,1.75]}");
    OK(d, "linspace(0, 1, 5)", "ls", NULL,
       A("array.create\",\"args\":{\"fn\":\"linspace\",\"start\":0,\"stop\":1,\"num\":5,\"device\":"
         "$cpu}"));
    READS(d, "linspace reads quarters", "ls",
          "{\"dtype\":\"float64\",\"shape\":[5],\"data\":[0,0.25,0.5,0.75,1]}");
    OK(d, "linspace(0, 1, 4, endpoint=false)", "ls2", NULL,
       A("array.create\",\"args\":{\"fn\":\"linspace\",\"start\":0,\"stop\":1,\"num\":4,"
         "\"endpoint\":false,\"device\":$cpu}"));
    READS(d, "it stops before 1", "ls2",
          "{\"dtype\":\"float64\",\"shape\":[4],\"data\":[0,0.25,0.5,0.75]}");
    OK(d, "eye(2)", "i2", NULL,
       A("array.create\",\"args\":{\"fn\":\"eye\",\"n_rows\":2,\"device\":$cpu}"));
    READS(d, "eye(2) reads the identity", "i2",
          "{\"dtype\":\"float64\",\"shape\":[2,2],\"data\":[1,0,0,1]}");
    OK(d, "eye(2, 3, k=1)", "i3", NULL,
       A("array.create\",\"args\":{\"fn\":\"eye\",\"n_rows\":2,\"n_cols\":3,\"k\":1,\"device\":$"
         "cpu}"));
    READS(d, "eye(2, 3, k=1) has ones above the diagonal", "i3",
          "{\"dtype\":\"float64\",\"shape\":[2,3],\"data\":[0,1,0,0,0,1]}");
    OK(d, "zeros_like", "zl", NULL, A("array.create\",\"args\":{\"fn\":\"zeros_like\",\"x\":$z}"));
    READS(d, "zeros_like keeps dtype and shape", "zl",
          "{\"dtype\":\"float32\",\"shape\":[2,3],\"data\":[0,0,0,0,0,0]}");
    OK(d, "ones_like", "ol", NULL, A("array.create\",\"args\":{\"fn\":\"ones_like\",\"x\":$o}"));
    READS(d, "ones_like reads ones", "ol", "{\"dtype\":\"int8\",\"shape\":[2],\"data\":[1,1]}");
    OK(d, "empty_like", "el", NULL,
       A("array.create\",\"args\":{\"fn\":\"empty_like\",\"x\":$o,\"dtype\":\"uint16\"}"));
    OK(d, "empty_like takes the dtype asked for", NULL, "{\"dtype\":\"uint16\",\"shape\":[2]}",
       A("array.describe\",\"args\":{\"array\":$el}"));
    OK(d, "full_like", "fl", NULL,
       A("array.create\",\"args\":{\"fn\":\"full_like\",\"x\":$z,\"fill_value\":3}"));
    READS(d, "full_like reads 3s in float32", "fl",
          "{\"dtype\":\"float32\",\"shape\":[2,3],\"data\":[3,3,3,3,3,3]}");
    OK(d, "a device string works as device=", "zs", NULL,
       A("array.create\",\"args\":{\"fn\":\"zeros\",\"shape\":[1],\"device\":{\"str\":\"cpu\"}}"));
    ERR(d, "DEV-DS-9: an unavailable device raises (tpu)", "ValueError", "library",
        A("array.create\",\"args\":{\"fn\":\"zeros\",\"shape\":[1],\"device\":{\"str\":\"tpu\"}}"));
    ERR(d, "a malformed device string raises", "ValueError", "library",
        A("array.create\",\"args\":{\"fn\":\"zeros\",\"shape\":[1],\"device\":{\"str\":\"GPU:0\"}"
          "}"));
    ERR(d, "a negative extent raises", "ValueError", "library",
        A("array.create\",\"args\":{\"fn\":\"zeros\",\"shape\":[-1],\"device\":$cpu}"));
    OK(d, "zeros with 2^24 + 1 elements", "huge", NULL,
       A("array.create\",\"args\":{\"fn\":\"zeros\",\"shape\":[16777217],\"dtype\":\"bool\","
         "\"device\":$cpu}"));
    ERR(d, "array.read refuses more than 2^24 elements, by name", "MemoryError", "adapter",
        A("array.read\",\"args\":{\"array\":$huge}"));
    fft_freq(d);
}

/* fftfreq/rfftfreq: [0, 1, ..., ceil(n/2)-1, -floor(n/2), ..., -1] / (d*n) and
 * [0, 1, ..., floor(n/2)] / (d*n). Each d*n below rounds to a power of two (0.2 * 5 is 1.0 in
 * binary64), so the expected values are exact. */
static void fft_freq(drv *d)
{
    OK(d, "DEV-CREATE-5: fftfreq n=8 d=0.25 on cpu", "fq", NULL,
       A("array.create\",\"args\":{\"fn\":\"fftfreq\",\"n\":8,\"d\":0.25,\"device\":$cpu}"));
    READS(d, "fftfreq(8, 0.25) reads [0, .5, 1, 1.5, -2, -1.5, -1, -.5] float64", "fq",
          "{\"dtype\":\"float64\",\"shape\":[8],\"data\":[0,0.5,1,1.5,-2,-1.5,-1,-0.5]}");
    ON_DEVICE(d, "DEV-CREATE-5: fftfreq's result is on device=cpu", "fq", "cpu");
    OK(d, "fftfreq n=5 d=0.2 (odd n)", "fq5", NULL,
       A("array.create\",\"args\":{\"fn\":\"fftfreq\",\"n\":5,\"d\":0.2,\"device\":$cpu}"));
    READS(d, "fftfreq(5, 0.2) reads [0, 1, 2, -2, -1]", "fq5",
          "{\"dtype\":\"float64\",\"shape\":[5],\"data\":[0,1,2,-2,-1]}");
    OK(d, "rfftfreq n=5 d=0.2", "rq5", NULL,
       A("array.create\",\"args\":{\"fn\":\"rfftfreq\",\"n\":5,\"d\":0.2,\"device\":$cpu}"));
    READS(d, "rfftfreq(5, 0.2) reads [0, 1, 2]", "rq5",
          "{\"dtype\":\"float64\",\"shape\":[3],\"data\":[0,1,2]}");
    OK(d, "rfftfreq n=4 float32, d defaulting to 1", "rq4", NULL,
       A("array.create\",\"args\":{\"fn\":\"rfftfreq\",\"n\":4,\"dtype\":\"float32\","
         "\"device\":{\"str\":\"cpu\"}}"));
    READS(d, "rfftfreq(4) reads [0, .25, .5] float32", "rq4",
          "{\"dtype\":\"float32\",\"shape\":[3],\"data\":[0,0.25,0.5]}");
    OK(d, "fftfreq with no device", "fqn", NULL,
       A("array.create\",\"args\":{\"fn\":\"fftfreq\",\"n\":2}"));
    ON_DEVICE(d, "DEV-CREATE-5: device=None puts it on the default device", "fqn", "D0");
    ERR(d, "fftfreq n=0 raises", "ValueError", "library",
        A("array.create\",\"args\":{\"fn\":\"fftfreq\",\"n\":0,\"device\":$cpu}"));
    ERR(d, "rfftfreq d=0 raises", "ValueError", "library",
        A("array.create\",\"args\":{\"fn\":\"rfftfreq\",\"n\":4,\"d\":0,\"device\":$cpu}"));
    ERR(d, "fftfreq with an integer dtype raises TypeError", "TypeError", "library",
        A("array.create\",\"args\":{\"fn\":\"fftfreq\",\"n\":4,\"dtype\":\"int32\","
          "\"device\":$cpu}"));
    ERR(d, "DEV-DS-9: fftfreq on an unavailable device raises", "ValueError", "library",
        A("array.create\",\"args\":{\"fn\":\"fftfreq\",\"n\":4,\"device\":{\"str\":\"tpu\"}}"));
}

static void conversion(drv *d)
{
    OK(d, "asarray from a typed array", "t", NULL,
       A("array.asarray\",\"args\":{\"obj\":{\"dtype\":\"float64\",\"shape\":[3],\"data\":[1.5,\"-"
         "0.0\",\"nan\"]},\"device\":$cpu}"));
    READS(d, "it reads back exactly", "t",
          "{\"dtype\":\"float64\",\"shape\":[3],\"data\":[1.5,\"-0.0\",\"nan\"]}");
    OK(d, "asarray with a dtype converts", "tc", NULL,
       A("array.asarray\",\"args\":{\"obj\":{\"dtype\":\"int32\",\"shape\":[2],\"data\":[1,2]},"
         "\"dtype\":\"float64\",\"device\":$cpu}"));
    READS(d, "it reads float64", "tc", "{\"dtype\":\"float64\",\"shape\":[2],\"data\":[1,2]}");
    OK(d, "asarray of a scalar", "s", NULL,
       A("array.asarray\",\"args\":{\"obj\":3,\"device\":$cpu}"));
    READS(d, "it is a 0-d int64", "s", "{\"dtype\":\"int64\",\"shape\":[],\"data\":[3]}");
    OK(d, "asarray of an array", "same", NULL, A("array.asarray\",\"args\":{\"obj\":$t}"));
    OK(d, "with nothing to change it is the array itself", NULL, "true",
       A("array.same\",\"args\":{\"a\":$same,\"b\":$t}"));
    OK(d, "asarray(copy=true)", "cp", NULL,
       A("array.asarray\",\"args\":{\"obj\":$t,\"copy\":true}"));
    OK(d, "copy=true gives a new array", NULL, "false",
       A("array.same\",\"args\":{\"a\":$cp,\"b\":$t}"));
    ERR(d, "copy=false with a dtype change raises", "ValueError", "library",
        A("array.asarray\",\"args\":{\"obj\":$t,\"dtype\":\"float32\",\"copy\":false}"));
    OK(d, "astype int32 -> float64", "as", NULL,
       A("array.astype\",\"args\":{\"x\":$tc,\"dtype\":\"int32\"}"));
    READS(d, "astype reads int32", "as", "{\"dtype\":\"int32\",\"shape\":[2],\"data\":[1,2]}");
    OK(d, "astype(copy=false) to the same dtype", "as2", NULL,
       A("array.astype\",\"args\":{\"x\":$as,\"dtype\":\"int32\",\"copy\":false}"));
    OK(d, "returns the array itself", NULL, "true",
       A("array.same\",\"args\":{\"a\":$as2,\"b\":$as}"));
    OK(d, "to_device to its own device", "td", NULL,
       A("array.to_device\",\"args\":{\"array\":$t,\"device\":$cpu}"));
    OK(d, "returns the array itself (spec/decisions.md)", NULL, "true",
       A("array.same\",\"args\":{\"a\":$td,\"b\":$t}"));
    ERR(d, "to_device to an unavailable device raises", "ValueError", "library",
        A("array.to_device\",\"args\":{\"array\":$t,\"device\":{\"str\":\"gpu:99\"}}"));
    OK(d, "stream.default of cpu", "scpu", NULL, A("stream.default\",\"args\":{\"device\":$cpu}"));
    OK(d, "to_device with cpu's default stream", NULL, NULL,
       A("array.to_device\",\"args\":{\"array\":$t,\"device\":$cpu,\"stream\":$scpu}"));
    OK(d, "dlpack_device of a cpu array is (kDLCPU, 0)", NULL, "[1,0]",
       A("array.dlpack_device\",\"args\":{\"array\":$t}"));
    OK(d, "DEV-DLP-14: from_dlpack with no device", "dl", NULL,
       A("array.from_dlpack\",\"args\":{\"x\":$t}"));
    OK(d, "DEV-DLP-16: copy=None reuses x: the array itself", NULL, "true",
       A("array.same\",\"args\":{\"a\":$dl,\"b\":$t}"));
    OK(d, "from_dlpack copy=true", "dlc", NULL,
       A("array.from_dlpack\",\"args\":{\"x\":$t,\"copy\":true}"));
    OK(d, "DEV-DLP-16: copy=true gives a new array", NULL, "false",
       A("array.same\",\"args\":{\"a\":$dlc,\"b\":$t}"));
    READS(d, "with x's dtype and values", "dlc",
          "{\"dtype\":\"float64\",\"shape\":[3],\"data\":[1.5,\"-0.0\",\"nan\"]}");
    ON_DEVICE(d, "DEV-DLP-14: the copy is on x's device", "dlc", "cpu");
    OK(d, "from_dlpack device=cpu copy=false (x's own device)", "dln", NULL,
       A("array.from_dlpack\",\"args\":{\"x\":$t,\"device\":$cpu,\"copy\":false}"));
    OK(d, "DEV-DLP-16: copy=false with nothing to move is x itself", NULL, "true",
       A("array.same\",\"args\":{\"a\":$dln,\"b\":$t}"));
    ERR(d, "from_dlpack to an unavailable device raises", "ValueError", "library",
        A("array.from_dlpack\",\"args\":{\"x\":$t,\"device\":{\"str\":\"gpu:99\"}}"));
}

static void operations(drv *d)
{
    OK(d, "x = [1, 2] int32", "x", NULL,
       A("array.asarray\",\"args\":{\"obj\":{\"dtype\":\"int32\",\"shape\":[2],\"data\":[1,2]},"
         "\"device\":$cpu}"));
    OK(d, "add x + 1", "r", NULL, A("array.binary\",\"args\":{\"fn\":\"add\",\"x1\":$x,\"x2\":1}"));
    READS(d, "DEV-DS-10: x + 1 is int32 [2, 3]", "r",
          "{\"dtype\":\"int32\",\"shape\":[2],\"data\":[2,3]}");
    OK(d, "subtract 10 - x", "r", NULL,
       A("array.binary\",\"args\":{\"fn\":\"subtract\",\"x1\":10,\"x2\":$x}"));
    READS(d, "10 - x is [9, 8]", "r", "{\"dtype\":\"int32\",\"shape\":[2],\"data\":[9,8]}");
    OK(d, "multiply x * x", "r", NULL,
       A("array.binary\",\"args\":{\"fn\":\"multiply\",\"x1\":$x,\"x2\":$x}"));
    READS(d, "x * x is [1, 4]", "r", "{\"dtype\":\"int32\",\"shape\":[2],\"data\":[1,4]}");
    OK(d, "y = [4, 9] float64", "y", NULL,
       A("array.asarray\",\"args\":{\"obj\":{\"dtype\":\"float64\",\"shape\":[2],\"data\":[4,9]},"
         "\"device\":$cpu}"));
    OK(d, "divide y / 2", "r", NULL,
       A("array.binary\",\"args\":{\"fn\":\"divide\",\"x1\":$y,\"x2\":2}"));
    READS(d, "y / 2 is [2, 4.5]", "r", "{\"dtype\":\"float64\",\"shape\":[2],\"data\":[2,4.5]}");
    OK(d, "equal x == 2", "r", NULL,
       A("array.binary\",\"args\":{\"fn\":\"equal\",\"x1\":$x,\"x2\":2}"));
    READS(d, "x == 2 is [false, true]", "r",
          "{\"dtype\":\"bool\",\"shape\":[2],\"data\":[false,true]}");
    OK(d, "less x < 2", "r", NULL,
       A("array.binary\",\"args\":{\"fn\":\"less\",\"x1\":$x,\"x2\":2}"));
    READS(d, "x < 2 is [true, false]", "r",
          "{\"dtype\":\"bool\",\"shape\":[2],\"data\":[true,false]}");
    OK(d, "maximum(y, 5)", "r", NULL,
       A("array.binary\",\"args\":{\"fn\":\"maximum\",\"x1\":$y,\"x2\":5}"));
    READS(d, "maximum(y, 5) is [5, 9]", "r",
          "{\"dtype\":\"float64\",\"shape\":[2],\"data\":[5,9]}");
    ERR(d, "unknown binary function", "ValueError", "protocol",
        A("array.binary\",\"args\":{\"fn\":\"power\",\"x1\":$y,\"x2\":5}"));
    OK(d, "negative x", "r", NULL, A("array.unary\",\"args\":{\"fn\":\"negative\",\"x\":$x}"));
    READS(d, "-x is [-1, -2]", "r", "{\"dtype\":\"int32\",\"shape\":[2],\"data\":[-1,-2]}");
    OK(d, "abs(-x)", "r", NULL, A("array.unary\",\"args\":{\"fn\":\"abs\",\"x\":$r}"));
    READS(d, "abs(-x) is [1, 2]", "r", "{\"dtype\":\"int32\",\"shape\":[2],\"data\":[1,2]}");
    OK(d, "sqrt y", "r", NULL, A("array.unary\",\"args\":{\"fn\":\"sqrt\",\"x\":$y}"));
    READS(d, "sqrt(y) is [2, 3]", "r", "{\"dtype\":\"float64\",\"shape\":[2],\"data\":[2,3]}");
    OK(d, "sum of x", "r", NULL, A("array.reduce\",\"args\":{\"fn\":\"sum\",\"x\":$x}"));
    READS(d, "DEV-ATTR-2: sum is a 0-d int64 3", "r",
          "{\"dtype\":\"int64\",\"shape\":[],\"data\":[3]}");
    OK(d, "m = [[1, 5], [3, 2]] float64", "m", NULL,
       A("array.asarray\",\"args\":{\"obj\":{\"dtype\":\"float64\",\"shape\":[2,2],\"data\":[1,5,3,"
         "2]},\"device\":$cpu}"));
    OK(d, "max of m over axis 0", "r", NULL,
       A("array.reduce\",\"args\":{\"fn\":\"max\",\"x\":$m,\"axis\":0}"));
    READS(d, "it is [3, 5]", "r", "{\"dtype\":\"float64\",\"shape\":[2],\"data\":[3,5]}");
    ERR(d, "an axis out of range raises IndexError", "IndexError", "library",
        A("array.reduce\",\"args\":{\"fn\":\"max\",\"x\":$m,\"axis\":5}"));
    OK(d, "c = [[1], [1]] float64", "c", NULL,
       A("array.asarray\",\"args\":{\"obj\":{\"dtype\":\"float64\",\"shape\":[2,1],\"data\":[1,1]},"
         "\"device\":$cpu}"));
    OK(d, "matmul m @ c", "r", NULL, A("array.matmul\",\"args\":{\"x1\":$m,\"x2\":$c}"));
    READS(d, "m @ c is [[6], [5]]", "r", "{\"dtype\":\"float64\",\"shape\":[2,1],\"data\":[6,5]}");
    ERR(d, "matmul with mismatched inner sizes raises", "ValueError", "library",
        A("array.matmul\",\"args\":{\"x1\":$c,\"x2\":$m}"));
    OK(d, "stack [x, x] on axis 1", "r", NULL,
       A("array.stack\",\"args\":{\"arrays\":[$x,$x],\"axis\":1}"));
    READS(d, "it is [[1, 1], [2, 2]]", "r",
          "{\"dtype\":\"int32\",\"shape\":[2,2],\"data\":[1,1,2,2]}");
    ERR(d, "stack of no arrays raises", "ValueError", "library",
        A("array.stack\",\"args\":{\"arrays\":[]}"));
    ERR(d, "stack with a bad handle in the list", "ValueError", "protocol",
        A("array.stack\",\"args\":{\"arrays\":[$x,\"array#999999\"]}"));
}

static void defaults(drv *d)
{
    OK(d, "default.get", "g", NULL, A("default.get\""));
    OK(d, "it is hello's default", NULL, "true", A("device.equal\",\"args\":{\"a\":$g,\"b\":$D0}"));
    OK(d, "default.set cpu", NULL, "null", A("default.set\",\"args\":{\"device\":$cpu}"));
    OK(d, "default.get after set", "g", NULL, A("default.get\""));
    OK(d, "it is cpu", NULL, "true", A("device.equal\",\"args\":{\"a\":$g,\"b\":$cpu}"));
    OK(d, "zeros without device= after set", "zz", NULL,
       A("array.create\",\"args\":{\"fn\":\"zeros\",\"shape\":[1]}"));
    ON_DEVICE(d, "DEV-DS-13: it lands on the global default", "zz", "cpu");
    ERR(d, "default.set to an unavailable device raises", "ValueError", "library",
        A("default.set\",\"args\":{\"device\":{\"str\":\"tpu:0\"}}"));
    ERR(d, "default.set needs a device", "TypeError", "protocol", A("default.set\""));
    OK(d, "default.unset", NULL, "null", A("default.unset\""));
    OK(d, "default.get after unset", "g", NULL, A("default.get\""));
    OK(d, "it is the built-in default again", NULL, "true",
       A("device.equal\",\"args\":{\"a\":$g,\"b\":$D0}"));
    OK(d, "default.push cpu", NULL, "null", A("default.push\",\"args\":{\"device\":$cpu}"));
    OK(d, "default.get in the scope", "g", NULL, A("default.get\""));
    OK(d, "it is cpu", NULL, "true", A("device.equal\",\"args\":{\"a\":$g,\"b\":$cpu}"));
    OK(d, "default.pop", NULL, "null", A("default.pop\""));
    ERR(d, "default.pop with no scope raises", "RuntimeError", "library", A("default.pop\""));
    OK(d, "soft.get is off", NULL, "false", A("soft.get\""));
    OK(d, "soft.set true", NULL, "null", A("soft.set\",\"args\":{\"enabled\":true}"));
    OK(d, "soft.get is on", NULL, "true", A("soft.get\""));
    OK(d, "soft.unset", NULL, "null", A("soft.unset\""));
    OK(d, "soft.get is off again", NULL, "false", A("soft.get\""));
    ERR(d, "soft.set needs a boolean", "TypeError", "protocol",
        A("soft.set\",\"args\":{\"enabled\":1}"));

    /* reset restores the global default, leaves every scope and undoes soft mode. */
    OK(d, "default.set cpu before reset", NULL, "null",
       A("default.set\",\"args\":{\"device\":$cpu}"));
    OK(d, "default.push cpu before reset", NULL, "null",
       A("default.push\",\"args\":{\"device\":$cpu}"));
    OK(d, "soft.set true before reset", NULL, "null", A("soft.set\",\"args\":{\"enabled\":true}"));
    OK(d, "reset", NULL, "null", A("reset\""));
    OK(d, "default.get after reset", "g", NULL, A("default.get\""));
    OK(d, "reset restored the built-in default", NULL, "true",
       A("device.equal\",\"args\":{\"a\":$g,\"b\":$D0}"));
    OK(d, "reset turned soft mode off", NULL, "false", A("soft.get\""));
    ERR(d, "reset left no scope to pop", "RuntimeError", "library", A("default.pop\""));
}

static void utilities(drv *d, int ndev)
{
    char n[16];
    snprintf(n, sizeof n, "%d", ndev - 1);
    OK(d, "util.num_gpus counts the gpu devices", NULL, n, A("util.num_gpus\""));
    OK(d, "util.num_cpu_cores", "cores", NULL, A("util.num_cpu_cores\""));
    drv_check(drv_bound(d, "cores") && atoi(drv_bound(d, "cores")) >= 1, "at least one core (%s)",
              drv_bound(d, "cores") ? drv_bound(d, "cores") : "none");
    OK(d, "util.total_memory of cpu", "mem", NULL,
       A("util.total_memory\",\"args\":{\"device\":$cpu}"));
    drv_check(drv_bound(d, "mem") && atof(drv_bound(d, "mem")) > 0, "cpu has memory (%s bytes)",
              drv_bound(d, "mem") ? drv_bound(d, "mem") : "none");
    OK(d, "util.used_memory of cpu", NULL, NULL,
       A("util.used_memory\",\"args\":{\"device\":$cpu}"));
    ERR(d, "util.total_memory needs a device", "TypeError", "library",
        A("util.total_memory\",\"args\":{\"device\":null}"));
    cJSON *r = drv_send(d, __FILE__, __LINE__, A("util.utilisation\",\"args\":{\"device\":$cpu}"));
    const cJSON *res = cJSON_GetObjectItemCaseSensitive(r, "result");
    const cJSON *kind =
        cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(r, "error"), "kind");
    /* refarray measures cpu from /proc/stat (refarray.h); only without it may it refuse. */
    if (access("/proc/stat", R_OK) == 0)
        drv_check(cJSON_IsNumber(res) && res->valuedouble >= 0 && res->valuedouble <= 100,
                  "util.utilisation of cpu is a percentage (/proc/stat is readable)");
    else
        drv_check(cJSON_IsString(kind) && strcmp(kind->valuestring, "NotImplementedError") == 0,
                  "util.utilisation of cpu is NotImplementedError without /proc/stat");
    cJSON_Delete(r);
}

/* dtype.can_cast, dtype.result_type (DEV-DT-2..4), array.tril/triu (DEV-CREATE-8) and
 * util.arrays_on_device (IVY-UTIL-6). Starts from a reset so that the arrays alive are the
 * ones made here. */
static void promotion_tri_live(drv *d, int ndev)
{
    OK(d, "reset before counting arrays", NULL, "null", A("reset\""));
    OK(d, "IVY-UTIL-6: after reset no array is alive on cpu", NULL, "{\"count\":0,\"arrays\":[]}",
       A("util.arrays_on_device\",\"args\":{\"device\":$cpu}"));
    OK(d, "DEV-DT-2: can_cast(float32, float64)", NULL, "true",
       A("dtype.can_cast\",\"args\":{\"from_\":\"float32\",\"to\":\"float64\"}"));
    OK(d, "DEV-DT-2: can_cast(int8, float32) is false (across kinds)", NULL, "false",
       A("dtype.can_cast\",\"args\":{\"from_\":\"int8\",\"to\":\"float32\"}"));
    OK(d, "DEV-DT-2: can_cast(int64, int32) is false", NULL, "false",
       A("dtype.can_cast\",\"args\":{\"from_\":\"int64\",\"to\":\"int32\"}"));
    OK(d, "x = [1.5, -2] float32 on cpu", "x", NULL,
       A("array.asarray\",\"args\":{\"obj\":{\"dtype\":\"float32\",\"shape\":[2],\"data\":[1.5,-2]}"
         ",\"device\":$cpu}"));
    OK(d, "DEV-DT-3: can_cast(x on cpu, float64): cpu has float64", NULL, "true",
       A("dtype.can_cast\",\"args\":{\"from_\":$x,\"to\":\"float64\"}"));
    OK(d, "DEV-DT-3: can_cast(x, int32) is false", NULL, "false",
       A("dtype.can_cast\",\"args\":{\"from_\":$x,\"to\":\"int32\"}"));
    OK(d, "result_type(int8, uint8) is int16", NULL, "\"int16\"",
       A("dtype.result_type\",\"args\":{\"args\":[\"int8\",\"uint8\"]}"));
    OK(d, "DEV-DT-4: result_type(x, complex64) is complex64", NULL, "\"complex64\"",
       A("dtype.result_type\",\"args\":{\"args\":[$x,\"complex64\"]}"));
    OK(d, "DEV-DT-4: result_type(x, x) is float32", NULL, "\"float32\"",
       A("dtype.result_type\",\"args\":{\"args\":[$x,$x]}"));
    ERR(d, "result_type(int8, float32) raises TypeError", "TypeError", "library",
        A("dtype.result_type\",\"args\":{\"args\":[\"int8\",\"float32\"]}"));
    ERR(d, "result_type of an empty list is a protocol error", "ValueError", "protocol",
        A("dtype.result_type\",\"args\":{\"args\":[]}"));
    ERR(d, "result_type of a non-dtype, non-handle string", "ValueError", "protocol",
        A("dtype.result_type\",\"args\":{\"args\":[\"float\"]}"));
    ERR(d, "result_type of a device handle", "TypeError", "protocol",
        A("dtype.result_type\",\"args\":{\"args\":[$cpu]}"));
    ERR(d, "result_type's args must be a list", "TypeError", "protocol",
        A("dtype.result_type\",\"args\":{\"args\":\"int8\"}"));
    ERR(d, "can_cast needs to", "TypeError", "protocol",
        A("dtype.can_cast\",\"args\":{\"from_\":\"int8\"}"));
    ERR(d, "can_cast's from_ must be a string", "TypeError", "protocol",
        A("dtype.can_cast\",\"args\":{\"from_\":3,\"to\":\"int8\"}"));
    ERR(d, "can_cast with an unknown dtype in to", "ValueError", "protocol",
        A("dtype.can_cast\",\"args\":{\"from_\":\"int8\",\"to\":\"int9\"}"));

    OK(d, "m = [[1,2,3],[4,5,6]] int32 on cpu", "m", NULL,
       A("array.asarray\",\"args\":{\"obj\":{\"dtype\":\"int32\",\"shape\":[2,3],"
         "\"data\":[1,2,3,4,5,6]},\"device\":$cpu}"));
    OK(d, "tril(m)", "t1", NULL, A("array.tril\",\"args\":{\"x\":$m}"));
    READS(d, "tril(m) keeps j <= i", "t1",
          "{\"dtype\":\"int32\",\"shape\":[2,3],\"data\":[1,0,0,4,5,0]}");
    OK(d, "triu(m, k=1)", "t2", NULL, A("array.triu\",\"args\":{\"x\":$m,\"k\":1}"));
    READS(d, "triu(m, k=1) keeps j >= i + 1", "t2",
          "{\"dtype\":\"int32\",\"shape\":[2,3],\"data\":[0,2,3,0,0,6]}");
    ON_DEVICE(d, "DEV-CREATE-8: triu's result is on m's device (cpu)", "t2", "cpu");
    ERR(d, "tril of a 1-D array raises ValueError", "ValueError", "library",
        A("array.tril\",\"args\":{\"x\":$x}"));
    ERR(d, "tril's k must be an integer", "TypeError", "protocol",
        A("array.tril\",\"args\":{\"x\":$m,\"k\":0.5}"));
    ERR(d, "triu needs x", "TypeError", "protocol", A("array.triu\",\"args\":{\"k\":1}"));

    OK(d, "y = to_device(x, cpu): x itself under a second handle", "y", NULL,
       A("array.to_device\",\"args\":{\"array\":$x,\"device\":$cpu}"));
    OK(d, "IVY-UTIL-6: x, m and the two results are alive on cpu; x keeps its first handle", NULL,
       "{\"count\":4,\"arrays\":[$x,$m,$t1,$t2]}",
       A("util.arrays_on_device\",\"args\":{\"device\":$cpu}"));
    ERR(d, "util.arrays_on_device needs a device", "TypeError", "protocol",
        A("util.arrays_on_device\""));
    ERR(d, "util.arrays_on_device of an unavailable device", "ValueError", "library",
        A("util.arrays_on_device\",\"args\":{\"device\":{\"str\":\"tpu:0\"}}"));
    if (ndev < 2) {
        drv_skip_part("DEV-CREATE-8: tril on gpu:0", "needs a second device (build with OpenCL)");
        return;
    }
    OK(d, "IVY-UTIL-6: nothing alive on gpu:0 yet", NULL, "{\"count\":0,\"arrays\":[]}",
       A("util.arrays_on_device\",\"args\":{\"device\":$gpu0}"));
    OK(d, "mg = m on gpu:0", "mg", NULL,
       A("array.to_device\",\"args\":{\"array\":$m,\"device\":$gpu0}"));
    OK(d, "tril(mg, k=-1)", "tg", NULL, A("array.tril\",\"args\":{\"x\":$mg,\"k\":-1}"));
    READS(d, "tril(mg, k=-1) values", "tg",
          "{\"dtype\":\"int32\",\"shape\":[2,3],\"data\":[0,0,0,4,0,0]}");
    ON_DEVICE(d, "DEV-CREATE-8: tril's result is on gpu:0", "tg", "gpu0");
    OK(d, "IVY-UTIL-6: gpu:0 holds mg and its tril", NULL, "{\"count\":2,\"arrays\":[$mg,$tg]}",
       A("util.arrays_on_device\",\"args\":{\"device\":$gpu0}"));
    OK(d, "IVY-UTIL-6: cpu still holds its four", NULL, "{\"count\":4}",
       A("util.arrays_on_device\",\"args\":{\"device\":$cpu}"));
}

static void multi_device(drv *d, int ndev)
{
    const char *why = "needs a second device (build with OpenCL; POCL_DEVICES)";
    if (ndev < 2) {
        const char *names[] = {
            "to_device to gpu:0",
            "values survive the move",
            "the copy is on gpu:0",
            "to_device with gpu:0's stream",
            "dlpack_device of a gpu array",
            "mixed devices raise",
            "DEV-DLP-16: from_dlpack to gpu:0 with copy=false raises BufferError",
            "DEV-DLP-14: from_dlpack device=gpu:0 moves x there",
            "DEV-DLP-14: from_dlpack of a gpu:0 array stays on gpu:0",
            "DEV-DLP-15: from_dlpack device=cpu delivers a host copy",
            "DEV-CREATE-5: fftfreq on gpu:0"};
        for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
            drv_skip_part(names[i], why);
        return;
    }
    OK(d, "x = [1.5, -2] float32 on cpu", "x", NULL,
       A("array.asarray\",\"args\":{\"obj\":{\"dtype\":\"float32\",\"shape\":[2],\"data\":[1.5,-2]}"
         ",\"device\":$cpu}"));
    OK(d, "to_device to gpu:0", "g", NULL,
       A("array.to_device\",\"args\":{\"array\":$x,\"device\":$gpu0}"));
    READS(d, "values survive the move", "g",
          "{\"dtype\":\"float32\",\"shape\":[2],\"data\":[1.5,-2]}");
    ON_DEVICE(d, "the copy is on gpu:0", "g", "gpu0");
    OK(d, "stream.default of gpu:0", "sg", NULL, A("stream.default\",\"args\":{\"device\":$gpu0}"));
    OK(d, "to_device with gpu:0's stream", "g2", NULL,
       A("array.to_device\",\"args\":{\"array\":$x,\"device\":$gpu0,\"stream\":$sg}"));
    ERR(d, "cpu has no streams: gpu:0's stream to cpu raises", "ValueError", "library",
        A("array.to_device\",\"args\":{\"array\":$g,\"device\":$cpu,\"stream\":$sg}"));
    OK(d, "dlpack_device of a gpu array", NULL, "[4,0]",
       A("array.dlpack_device\",\"args\":{\"array\":$g}"));
    ERR(d, "mixed devices raise", "ValueError", "library",
        A("array.binary\",\"args\":{\"fn\":\"add\",\"x1\":$x,\"x2\":$g}"));
    ERR(d, "DEV-DLP-16: from_dlpack to gpu:0 with copy=false raises BufferError", "BufferError",
        "library", A("array.from_dlpack\",\"args\":{\"x\":$x,\"device\":$gpu0,\"copy\":false}"));
    OK(d, "from_dlpack device=gpu:0", "xg", NULL,
       A("array.from_dlpack\",\"args\":{\"x\":$x,\"device\":$gpu0}"));
    ON_DEVICE(d, "DEV-DLP-14: from_dlpack device=gpu:0 moves x there", "xg", "gpu0");
    READS(d, "with x's values", "xg", "{\"dtype\":\"float32\",\"shape\":[2],\"data\":[1.5,-2]}");
    OK(d, "from_dlpack of the gpu:0 array", "gg", NULL,
       A("array.from_dlpack\",\"args\":{\"x\":$g}"));
    ON_DEVICE(d, "DEV-DLP-14: from_dlpack of a gpu:0 array stays on gpu:0", "gg", "gpu0");
    OK(d, "from_dlpack of the gpu:0 array, device=cpu", "gc", NULL,
       A("array.from_dlpack\",\"args\":{\"x\":$g,\"device\":$cpu}"));
    ON_DEVICE(d, "DEV-DLP-15: from_dlpack device=cpu delivers a host copy", "gc", "cpu");
    OK(d, "dlpack_device of it is (kDLCPU, 0)", NULL, "[1,0]",
       A("array.dlpack_device\",\"args\":{\"array\":$gc}"));
    OK(d, "fftfreq n=4 on gpu:0", "fg", NULL,
       A("array.create\",\"args\":{\"fn\":\"fftfreq\",\"n\":4,\"device\":$gpu0}"));
    ON_DEVICE(d, "DEV-CREATE-5: fftfreq on gpu:0", "fg", "gpu0");
    READS(d, "its values are [0, .25, -.5, -.25]", "fg",
          "{\"shape\":[4],\"data\":[0,0.25,-0.5,-0.25]}");
}

/* Sharding (TG-SHARD-*, TG-EW-*, TG-RED-1, TG-GATHER-*) over (cpu, gpu:0): the ops, the
 * layout they report, and their errors; values follow the statements (four elements over
 * two devices give [1, 2] and [3, 4]). */
static void sharding(drv *d, int ndev)
{
    const char *why = "needs a second device (build with OpenCL; POCL_DEVICES)";
    if (ndev < 2) {
        const char *names[] = {"TG-SHARD-5: shard [1, 2, 3, 4] over (cpu, gpu:0) along axis 0",
                               "TG-SHARD-6: bounds [[0, 2], [2, 4]]",
                               "TG-SHARD-5: piece 1 holds [3, 4]",
                               "TG-SHARD-4: sharding it again raises RuntimeError",
                               "TG-SHARD-9: 3 elements over 2 devices raise RuntimeError",
                               "TG-SHARD-3: shard_inplace returns the same array",
                               "TG-EW-3: add of two splits",
                               "TG-EW-1: a sharded and an unsharded array raise ValueError",
                               "TG-RED-1: the sum of [1, 2, 3, 4] is 10",
                               "TG-GATHER-1: to_device cpu reads [1, 2, 3, 4]",
                               "TG-GATHER-2: to_devices with the same tuple is the same array"};
        for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
            drv_skip_part(names[i], why);
        return;
    }
    OK(d, "x = [1, 2, 3, 4] float32 on cpu", "sx", NULL,
       A("array.asarray\",\"args\":{\"obj\":{\"dtype\":\"float32\",\"shape\":[4],\"data\":[1,2,3,"
         "4]},\"device\":$cpu}"));
    OK(d, "TG-SHARD-5: shard [1, 2, 3, 4] over (cpu, gpu:0) along axis 0", "ss", NULL,
       A("array.shard\",\"args\":{\"x\":$sx,\"devices\":[$cpu,$gpu0],\"axis\":0}"));
    OK(d, "TG-SHARD-6: bounds [[0, 2], [2, 4]]", "ssd",
       "{\"sharded\":true,\"axis\":0,\"bounds\":[[0,2],[2,4]]}",
       A("array.shard_describe\",\"args\":{\"array\":$ss}"));
    OK(d, "the describe of an unsharded array", NULL,
       "{\"sharded\":false,\"axis\":null,\"bounds\":null}",
       A("array.shard_describe\",\"args\":{\"array\":$sx}"));
    OK(d, "piece 1", "sp1", NULL, A("array.shard_piece\",\"args\":{\"array\":$ss,\"index\":1}"));
    READS(d, "TG-SHARD-5: piece 1 holds [3, 4]", "sp1",
          "{\"dtype\":\"float32\",\"shape\":[2],\"data\":[3,4]}");
    ON_DEVICE(d, "TG-SHARD-1: piece 1 is on gpu:0", "sp1", "gpu0");
    ERR(d, "piece 2 of 2 raises IndexError", "IndexError", "library",
        A("array.shard_piece\",\"args\":{\"array\":$ss,\"index\":2}"));
    ERR(d, "a piece of an unsharded array raises ValueError", "ValueError", "library",
        A("array.shard_piece\",\"args\":{\"array\":$sx,\"index\":0}"));
    ERR(d, "a negative piece index is a protocol error", "ValueError", "protocol",
        A("array.shard_piece\",\"args\":{\"array\":$ss,\"index\":-1}"));
    ERR(d, "TG-SHARD-4: sharding it again raises RuntimeError", "RuntimeError", "library",
        A("array.shard\",\"args\":{\"x\":$ss,\"devices\":[$cpu,$gpu0]}"));
    ERR(d, "an empty device list is a protocol error", "TypeError", "protocol",
        A("array.shard\",\"args\":{\"x\":$sx,\"devices\":[]}"));
    ERR(d, "a null device in the list is a protocol error", "TypeError", "protocol",
        A("array.shard\",\"args\":{\"x\":$sx,\"devices\":[$cpu,null]}"));
    ERR(d, "a device listed twice raises ValueError", "ValueError", "library",
        A("array.shard\",\"args\":{\"x\":$sx,\"devices\":[$cpu,$cpu],\"axis\":0}"));
    ERR(d, "axis 1 of a 1-D array raises IndexError", "IndexError", "library",
        A("array.shard\",\"args\":{\"x\":$sx,\"devices\":[$cpu,$gpu0],\"axis\":1}"));
    OK(d, "y = [1, 2, 3] int32 on cpu", "sy", NULL,
       A("array.asarray\",\"args\":{\"obj\":{\"dtype\":\"int32\",\"shape\":[3],\"data\":[1,2,3]}"
         ",\"device\":$cpu}"));
    ERR(d, "TG-SHARD-9: 3 elements over 2 devices raise RuntimeError", "RuntimeError", "library",
        A("array.shard\",\"args\":{\"x\":$sy,\"devices\":[$cpu,$gpu0],\"axis\":0}"));
    OK(d, "TG-SHARD-3: shard_inplace y replicated", "syi", NULL,
       A("array.shard_inplace\",\"args\":{\"x\":$sy,\"devices\":[{\"str\":\"gpu:0\"},$cpu]}"));
    OK(d, "TG-SHARD-3: shard_inplace returns the same array", NULL, "true",
       A("array.same\",\"args\":{\"a\":$sy,\"b\":$syi}"));
    OK(d, "TG-SHARD-7: y is now replicated", NULL,
       "{\"sharded\":true,\"axis\":null,\"bounds\":null}",
       A("array.shard_describe\",\"args\":{\"array\":$sy}"));
    OK(d, "add of two splits", "sa", NULL,
       A("array.binary\",\"args\":{\"fn\":\"add\",\"x1\":$ss,\"x2\":$ss}"));
    READS(d, "TG-EW-3: add of two splits", "sa", "{\"shape\":[4],\"data\":[2,4,6,8]}");
    ERR(d, "TG-EW-1: a sharded and an unsharded array raise ValueError", "ValueError", "library",
        A("array.binary\",\"args\":{\"fn\":\"add\",\"x1\":$ss,\"x2\":$sx}"));
    ERR(d, "TG-EW-1: tuples in another order raise ValueError", "ValueError", "library",
        A("array.binary\",\"args\":{\"fn\":\"add\",\"x1\":$ss,\"x2\":$sy}"));
    OK(d, "sum of the split", "sr", NULL,
       A("array.reduce\",\"args\":{\"fn\":\"sum\",\"x\":$ss,\"axis\":null}"));
    READS(d, "TG-RED-1: the sum of [1, 2, 3, 4] is 10", "sr", "{\"shape\":[],\"data\":[10]}");
    OK(d, "to_device cpu", "sg", NULL,
       A("array.to_device\",\"args\":{\"array\":$ss,\"device\":$cpu}"));
    READS(d, "TG-GATHER-1: to_device cpu reads [1, 2, 3, 4]", "sg",
          "{\"shape\":[4],\"data\":[1,2,3,4]}");
    OK(d, "to_devices with the same tuple", "st", NULL,
       A("array.to_devices\",\"args\":{\"array\":$ss,\"devices\":[$cpu,$gpu0]}"));
    OK(d, "TG-GATHER-2: to_devices with the same tuple is the same array", NULL, "true",
       A("array.same\",\"args\":{\"a\":$ss,\"b\":$st}"));
}

/* hello once for every test (a filter may leave out the first), with the bindings the
 * tests use: $cpu, $D0 and, with a second device, $gpu0. */
static int ndev = -1;

static void need_hello(void)
{
    drv *d = drv_shared;
    if (ndev >= 0) return;
    drv_skip_unimplemented(d, true);
    dt_diag("transport: %s", drv_is_host(d) ? "out of process (devspec-adapter-host)"
                                            : "in process (devspec_adapter_call)");
    OK(d, "hello", "hello",
       "{\"protocol\":1,\"library\":{\"name\":\"refarray\"},\"adapter\":{\"name\":"
       "\"refarray\"},"
       "\"max_line\":67108864}",
       A("hello\",\"args\":{\"protocol\":1}"));
    cJSON *hello = cJSON_Parse(drv_bound(d, "hello"));
    const cJSON *devs = cJSON_GetObjectItemCaseSensitive(hello, "devices");
    const cJSON *strs = cJSON_GetObjectItemCaseSensitive(hello, "device_strs");
    int n = cJSON_GetArraySize(devs);
    char *feats = cJSON_PrintUnformatted(cJSON_GetObjectItemCaseSensitive(hello, "features"));
    dt_diag("devices: %d; features claimed: %s", n, feats);
    free(feats);
    const cJSON *s0 = cJSON_GetArrayItem(strs, 0);
    drv_check(n >= 1 && cJSON_IsString(s0) && strcmp(s0->valuestring, "cpu") == 0,
              "hello lists cpu first (device_strs[0] is \"cpu\")");
    drv_bind(d, "cpu", cJSON_GetArrayItem(devs, 0));
    drv_bind(d, "D0", cJSON_GetObjectItemCaseSensitive(hello, "default_device"));
    if (n >= 2) drv_bind(d, "gpu0", cJSON_GetArrayItem(devs, 1));
    cJSON_Delete(hello);
    ndev = n;
}

DT_TEST(hello)
{
    need_hello();
}

DT_TEST(devices_ops)
{
    need_hello();
    devices(drv_shared, ndev);
}

DT_TEST(creation_ops)
{
    need_hello();
    creation(drv_shared);
}

DT_TEST(conversion_ops)
{
    need_hello();
    conversion(drv_shared);
}

DT_TEST(operations_ops)
{
    need_hello();
    operations(drv_shared);
}

DT_TEST(defaults_ops)
{
    need_hello();
    defaults(drv_shared);
}

/* array.binary_into (OF-OUT-1, OF-OUT-2) and dtype.describe (OF-DT-1, OF-DT-2), with the
 * adapter's default rule sets (the array API's promotion, OF-OUT-1 as stated). */
static void out_and_dtypes(drv *d)
{
    OK(d, "f = [1.5, 2] float32 on cpu", "f", NULL,
       A("array.asarray\",\"args\":{\"obj\":{\"dtype\":\"float32\",\"shape\":[2],\"data\":[1.5,2]}"
         ",\"device\":$cpu}"));
    OK(d, "g = [3, 0.5] float64 on cpu", "g", NULL,
       A("array.asarray\",\"args\":{\"obj\":{\"dtype\":\"float64\",\"shape\":[2],\"data\":[3,0.5]}"
         ",\"device\":$cpu}"));
    OK(d, "i = [7, 8] int32 on cpu", "i", NULL,
       A("array.asarray\",\"args\":{\"obj\":{\"dtype\":\"int32\",\"shape\":[2],\"data\":[7,8]}"
         ",\"device\":$cpu}"));
    OK(d, "f *= g (float64 result cast into float32: OF-OUT-4 as stated)", NULL, "null",
       A("array.binary_into\",\"args\":{\"fn\":\"multiply\",\"x1\":$f,\"x2\":$g,\"out\":$f}"));
    READS(d, "f holds 4.5 and 1 in float32", "f",
          "{\"dtype\":\"float32\",\"shape\":[2],\"data\":[4.5,1]}");
    ERR(d, "OF-OUT-2: a float64 result into an int32 out raises RuntimeError", "RuntimeError",
        "library",
        A("array.binary_into\",\"args\":{\"fn\":\"add\",\"x1\":$g,\"x2\":$g,\"out\":$i}"));
    READS(d, "i is unchanged after the refusal", "i",
          "{\"dtype\":\"int32\",\"shape\":[2],\"data\":[7,8]}");
    ERR(d, "binary_into's out must be an array handle", "TypeError", "protocol",
        A("array.binary_into\",\"args\":{\"fn\":\"add\",\"x1\":$g,\"x2\":$g,\"out\":3}"));
    ERR(d, "binary_into knows add, subtract, multiply and divide only", "ValueError", "protocol",
        A("array.binary_into\",\"args\":{\"fn\":\"equal\",\"x1\":$g,\"x2\":$g,\"out\":$g}"));
    OK(d, "c = [2, 3] complex64 on cpu", "c", NULL,
       A("array.asarray\",\"args\":{\"obj\":{\"dtype\":\"complex64\",\"shape\":[2],"
         "\"data\":[[2,0],[3,0]]},\"device\":$cpu}"));
    OK(d, "c * 1j with a complex scalar", "cj", NULL,
       A("array.binary\",\"args\":{\"fn\":\"multiply\",\"x1\":$c,\"x2\":{\"complex\":[0,1]}}"));
    READS(d, "c * 1j is [2j, 3j] in complex64", "cj",
          "{\"dtype\":\"complex64\",\"shape\":[2],\"data\":[[0,2],[0,3]]}");
    ERR(d, "a complex scalar is a [re, im] pair", "TypeError", "protocol",
        A("array.binary\",\"args\":{\"fn\":\"add\",\"x1\":$c,\"x2\":{\"complex\":[1]}}"));
    ERR(d, "a complex scalar with a float array is refarray's TypeError", "TypeError", "library",
        A("array.binary\",\"args\":{\"fn\":\"add\",\"x1\":$f,\"x2\":{\"complex\":[0,1]}}"));
    OK(d, "OF-DT-1: half is float16", NULL, "{\"name\":\"float16\",\"is_floating_point\":true}",
       A("dtype.describe\",\"args\":{\"name\":\"half\"}"));
    OK(d, "OF-DT-2: long is int64, not floating", NULL,
       "{\"name\":\"int64\",\"is_floating_point\":false}",
       A("dtype.describe\",\"args\":{\"name\":\"long\"}"));
    ERR(d, "an unknown spelling is refarray's ValueError", "ValueError", "library",
        A("dtype.describe\",\"args\":{\"name\":\"float128\"}"));
}

/* global.binary and global.sum refuse malformed global operands before the library is
 * called; well formed, they need MPI (the SPMD transport), which these runs have not. */
#define GV "{\"value\":{\"dtype\":\"float64\",\"shape\":[4],\"data\":[1,2,3,4]},"
#define GFLAT "\"placement\":{\"type\":\"cpu\",\"ranks\":[0]},\"sbp\":[\"broadcast\"]}"
DT_TEST(global_ops_ops)
{
    need_hello();
    drv *d = drv_shared;
    ERR(d, "global.binary without x2", "TypeError", "protocol",
        A("global.binary\",\"args\":{\"fn\":\"add\",\"x1\":" GV GFLAT "}"));
    ERR(d, "global.binary knows add, subtract, multiply and divide only", "ValueError", "protocol",
        A("global.binary\",\"args\":{\"fn\":\"power\",\"x1\":" GV GFLAT ",\"x2\":" GV GFLAT "}"));
    ERR(d, "a global operand is an object", "TypeError", "protocol",
        A("global.binary\",\"args\":{\"fn\":\"add\",\"x1\":[1],\"x2\":" GV GFLAT "}"));
    ERR(d, "a global operand without sbp", "TypeError", "protocol",
        A("global.sum\",\"args\":{\"x\":" GV "\"placement\":{\"type\":\"cpu\",\"ranks\":[0]}}"
          "}"));
    ERR(d, "a global operand with both value and locals", "TypeError", "protocol",
        A("global.sum\",\"args\":{\"x\":" GV "\"locals\":[{\"dtype\":\"float64\",\"shape\":[1],"
          "\"data\":[1]}]," GFLAT "}"));
    ERR(d, "a global operand with an unknown key", "TypeError", "protocol",
        A("global.sum\",\"args\":{\"x\":" GV "\"device\":1," GFLAT "}"));
    ERR(d, "an sbp of a global operand is split, broadcast or partial_sum", "TypeError", "protocol",
        A("global.sum\",\"args\":{\"x\":" GV "\"placement\":{\"type\":\"cpu\",\"ranks\":[0]},"
          "\"sbp\":[\"replicate\"]}}"));
    ERR(d, "sum's axis is an integer", "TypeError", "protocol",
        A("global.sum\",\"args\":{\"x\":" GV GFLAT ",\"axis\":\"0\"}"));
    ERR(d, "well formed, global.sum needs MPI in the adapter's process", "NotImplementedError",
        NULL, A("global.sum\",\"args\":{\"x\":" GV GFLAT "}"));
}
#undef GV
#undef GFLAT

DT_TEST(out_and_dtypes_ops)
{
    need_hello();
    out_and_dtypes(drv_shared);
}

DT_TEST(utilities_ops)
{
    need_hello();
    utilities(drv_shared, ndev);
}

DT_TEST(promotion_tri_live_ops)
{
    need_hello();
    promotion_tri_live(drv_shared, ndev);
}

DT_TEST(multi_device_ops)
{
    need_hello();
    multi_device(drv_shared, ndev);
}

DT_TEST(sharding_ops)
{
    need_hello();
    sharding(drv_shared, ndev);
}

DT_TEST(bye)
{
    need_hello();
    OK(drv_shared, "bye", NULL, "null", A("bye\""));
}

/* The adapter's context has a memory limit (4 GiB by default): full of 2^33 int8 is
 * MemoryError at once, not 8 GiB taken; a shape whose element count overflows says so. */
DT_TEST(memory_limit_ops)
{
    need_hello();
    ERR(drv_shared, "full of 2^33 int8 passes the memory limit", "MemoryError", "library",
        A("array.create\",\"args\":{\"fn\":\"full\",\"shape\":[8589934592],\"fill_value\":1,"
          "\"dtype\":\"int8\",\"device\":{\"str\":\"cpu\"}}"));
    ERR(drv_shared, "a shape of [2^32, 2^32] is an overflow", "ValueError", "library",
        A("array.create\",\"args\":{\"fn\":\"full\",\"shape\":[4294967296,4294967296],"
          "\"fill_value\":1,\"dtype\":\"int8\"}"));
}

/* The generic call (spec/protocol.md, "call"): the standard's names refarray has, answered
 * through its slots with the device rules; what it has not, lacking by name. */
DT_TEST(call_ops)
{
    need_hello();
    drv *d = drv_shared;
    OK(d, "x = [1, 2] float64", "x", NULL,
       A("array.asarray\",\"args\":{\"obj\":{\"dtype\":\"float64\",\"shape\":[2],"
         "\"data\":[1,2]},\"device\":$cpu}"));
    OK(d, "call add(x, 1.5)", "r", NULL, A("call\",\"args\":{\"fn\":\"add\",\"args\":[$x,1.5]}"));
    READS(d, "add(x, 1.5) is [2.5, 3.5]", "r",
          "{\"dtype\":\"float64\",\"shape\":[2],\"data\":[2.5,3.5]}");
    OK(d, "call Array.__mul__(x, x)", "r", NULL,
       A("call\",\"args\":{\"fn\":\"Array.__mul__\",\"args\":[$x,$x]}"));
    READS(d, "x * x is [1, 4]", "r", "{\"dtype\":\"float64\",\"shape\":[2],\"data\":[1,4]}");
    OK(d, "call stack((x, x), axis=1)", "r", NULL,
       A("call\",\"args\":{\"fn\":\"stack\",\"args\":[{\"tuple\":[$x,$x]}],"
         "\"kwargs\":{\"axis\":1}}"));
    READS(d, "stack((x, x), axis=1) is [[1, 1], [2, 2]]", "r",
          "{\"dtype\":\"float64\",\"shape\":[2,2],\"data\":[1,1,2,2]}");
    OK(d, "call sum(x, axis=None)", "r", NULL,
       A("call\",\"args\":{\"fn\":\"sum\",\"args\":[$x],\"kwargs\":{\"axis\":null}}"));
    READS(d, "sum(x) is 3", "r", "{\"dtype\":\"float64\",\"shape\":[],\"data\":[3]}");
    LACKS(d, "a function refarray has not is lacking by its name, origin library", "linalg.lstsq",
          "library", A("call\",\"args\":{\"fn\":\"linalg.lstsq\",\"args\":[$x,$x]}"));
    LACKS(d, "a keyword refarray has not is lacking as sum(out=)", "sum(out=)", NULL,
          A("call\",\"args\":{\"fn\":\"sum\",\"args\":[$x],\"kwargs\":{\"out\":null}}"));
    ERR(d, "pick on an array result is IndexError (adapter)", "IndexError", "adapter",
        A("call\",\"args\":{\"fn\":\"add\",\"args\":[$x,$x],\"pick\":0}"));
    ERR(d, "a bare JSON list is no call value", "TypeError", "protocol",
        A("call\",\"args\":{\"fn\":\"add\",\"args\":[$x,[1]]}"));
    ERR(d, "a slice has three bounds", "TypeError", "protocol",
        A("call\",\"args\":{\"fn\":\"add\",\"args\":[$x,{\"slice\":[1]}]}"));
    ERR(d, "an unknown dtype", "ValueError", "protocol",
        A("call\",\"args\":{\"fn\":\"add\",\"args\":[$x,{\"dtype\":\"float8\"}]}"));
}

/* The elementwise, creation, data type, statistical and utility names and the array object's
 * attributes (call_elementwise.c): the argument forms the standard gives them reach
 * refarray_fn_elementwise.h, a nested sequence becomes an array, attributes and conversions
 * come back as plain values. */
DT_TEST(call_elementwise)
{
    need_hello();
    drv *d = drv_shared;
    /* asarray([[1, 2, 3], [4, 5, 6]], device=cpu): ints give int64, C order. */
    OK(d, "call asarray(nested list)", "m", NULL,
       A("call\",\"args\":{\"fn\":\"asarray\",\"args\":[{\"list\":[{\"list\":[1,2,3]},"
         "{\"list\":[4,5,6]}]}],\"kwargs\":{\"device\":$cpu}}"));
    READS(d, "asarray of a nested list", "m",
          "{\"dtype\":\"int64\",\"shape\":[2,3],\"data\":[1,2,3,4,5,6]}");
    ERR(d, "a ragged sequence is ValueError", "ValueError", "library",
        A("call\",\"args\":{\"fn\":\"asarray\",\"args\":[{\"list\":[{\"list\":[1]},"
          "{\"list\":[2,3]}]}]}"));
    OK(d, "Array.shape is a list of ints", NULL, "[2,3]",
       A("call\",\"args\":{\"fn\":\"Array.shape\",\"args\":[$m]}"));
    /* Column sums 1 + 4, 2 + 5, 3 + 6, the axis kept. */
    OK(d, "call sum(m, axis=0, keepdims=True)", "r", NULL,
       A("call\",\"args\":{\"fn\":\"sum\",\"args\":[$m],\"kwargs\":{\"axis\":0,"
         "\"keepdims\":true}}"));
    READS(d, "sum(m, axis=0, keepdims=True) is [[5, 7, 9]]", "r",
          "{\"dtype\":\"int64\",\"shape\":[1,3],\"data\":[5,7,9]}");
    /* bitwise_and(m, 6): 1 & 6 = 0, 2 & 6 = 2, 3 & 6 = 2, 4 & 6 = 4, 5 & 6 = 4, 6 & 6 = 6. */
    OK(d, "call m & 6", "r", NULL, A("call\",\"args\":{\"fn\":\"Array.__and__\",\"args\":[$m,6]}"));
    READS(d, "m & 6", "r", "{\"dtype\":\"int64\",\"shape\":[2,3],\"data\":[0,2,2,4,4,6]}");
    OK(d, "call max(m)", "r", NULL, A("call\",\"args\":{\"fn\":\"max\",\"args\":[$m]}"));
    OK(d, "int(max(m)) is 6", NULL, "6",
       A("call\",\"args\":{\"fn\":\"Array.__int__\",\"args\":[$r]}"));
    ERR(d, "int() of a 2-D array is ValueError", "ValueError", "library",
        A("call\",\"args\":{\"fn\":\"Array.__int__\",\"args\":[$m]}"));
    OK(d, "isdtype(int64, ('real floating', 'integral')) is True", NULL, "true",
       A("call\",\"args\":{\"fn\":\"isdtype\",\"args\":[{\"dtype\":\"int64\"},"
         "{\"tuple\":[\"real floating\",\"integral\"]}]}"));
    OK(d, "result_type(m, 1) is int64", NULL, "{\"dtype\":\"int64\"}",
       A("call\",\"args\":{\"fn\":\"result_type\",\"args\":[$m,1]}"));
    ERR(d, "result_type(m, 1.5): a float cannot take int64", "TypeError", "library",
        A("call\",\"args\":{\"fn\":\"result_type\",\"args\":[$m,1.5]}"));
    /* m lives on the cpu device: DLPack's kDLCPU is 1, device id 0. */
    OK(d, "m.__dlpack_device__() is (1, 0)", NULL, "[1,0]",
       A("call\",\"args\":{\"fn\":\"Array.__dlpack_device__\",\"args\":[$m]}"));
    ERR(d, "var(m): int64 is not real floating", "TypeError", "library",
        A("call\",\"args\":{\"fn\":\"var\",\"args\":[$m]}"));
}

/* The manipulation, indexing, searching, set and sorting names (call_shape.c): the argument
 * forms the standard gives them reach refarray_fn_shape.h, a tuple of plain values comes back
 * as a list, indexing writes in place, and a keyword the standard has not is lacking. */
DT_TEST(call_shape)
{
    need_hello();
    drv *d = drv_shared;
    OK(d, "y = [3, 1, 2] float64", "y", NULL,
       A("array.asarray\",\"args\":{\"obj\":{\"dtype\":\"float64\",\"shape\":[3],"
         "\"data\":[3,1,2]},\"device\":$cpu}"));
    /* (2, 1) and (3,) broadcast to (2, 3) */
    OK(d, "broadcast_shapes((2, 1), (3,)) is [2, 3]", NULL, "[2,3]",
       A("call\",\"args\":{\"fn\":\"broadcast_shapes\",\"args\":[{\"tuple\":[2,1]},"
         "{\"tuple\":[3]}]}"));
    OK(d, "call expand_dims(y, 0) with axis positional", "r", NULL,
       A("call\",\"args\":{\"fn\":\"expand_dims\",\"args\":[$y,0]}"));
    READS(d, "expand_dims(y, 0) is [[3, 1, 2]]", "r",
          "{\"dtype\":\"float64\",\"shape\":[1,3],\"data\":[3,1,2]}");
    OK(d, "call y[::-1]", "r", NULL,
       A("call\",\"args\":{\"fn\":\"Array.__getitem__\",\"args\":[$y,"
         "{\"slice\":[null,null,-1]}]}"));
    READS(d, "y[::-1] is [2, 1, 3]", "r", "{\"dtype\":\"float64\",\"shape\":[3],\"data\":[2,1,3]}");
    /* sorted [1, 2, 3]: argsort gives the positions 1, 2, 0 */
    OK(d, "call argsort(y)", "r", NULL, A("call\",\"args\":{\"fn\":\"argsort\",\"args\":[$y]}"));
    READS(d, "argsort(y) is [1, 2, 0]", "r",
          "{\"dtype\":\"int64\",\"shape\":[3],\"data\":[1,2,0]}");
    OK(d, "call unique_counts(y) pick 1", "r", NULL,
       A("call\",\"args\":{\"fn\":\"unique_counts\",\"args\":[$y],\"pick\":1}"));
    READS(d, "every value of y once", "r", "{\"dtype\":\"int64\",\"shape\":[3],\"data\":[1,1,1]}");
    OK(d, "y[..., 1:] = 0", NULL, "null",
       A("call\",\"args\":{\"fn\":\"Array.__setitem__\",\"args\":[$y,"
         "{\"tuple\":[{\"ellipsis\":true},{\"slice\":[1,null,null]}]},0]}"));
    READS(d, "y is [3, 0, 0] after y[..., 1:] = 0", "y",
          "{\"dtype\":\"float64\",\"shape\":[3],\"data\":[3,0,0]}");
    ERR(d, "searchsorted side='middle' is ValueError", "ValueError", "library",
        A("call\",\"args\":{\"fn\":\"searchsorted\",\"args\":[$y,1],"
          "\"kwargs\":{\"side\":\"middle\"}}"));
    ERR(d, "y[3] is IndexError", "IndexError", "library",
        A("call\",\"args\":{\"fn\":\"Array.__getitem__\",\"args\":[$y,3]}"));
    LACKS(d, "a keyword the standard has not is lacking as sort(kind=)", "sort(kind=)", NULL,
          A("call\",\"args\":{\"fn\":\"sort\",\"args\":[$y],\"kwargs\":{\"kind\":\"quick\"}}"));
}

/* The generated handlers (call_generated.c, from the rows of spec/signatures.json whose
 * refarray entry names a function): the call's arguments bound as Python binds them, by
 * position or by keyword as each parameter allows, with its default; a keyword no parameter
 * takes is lacking, and a missing, repeated or extra argument is TypeError. */
DT_TEST(call_generated)
{
    need_hello();
    drv *d = drv_shared;
    OK(d, "g = [3, 1, 2] float64", "g", NULL,
       A("array.asarray\",\"args\":{\"obj\":{\"dtype\":\"float64\",\"shape\":[3],"
         "\"data\":[3,1,2]},\"device\":$cpu}"));
    OK(d, "call flip(g): axis defaults to None", "r", NULL,
       A("call\",\"args\":{\"fn\":\"flip\",\"args\":[$g]}"));
    READS(d, "flip(g) is [2, 1, 3]", "r", "{\"dtype\":\"float64\",\"shape\":[3],\"data\":[2,1,3]}");
    OK(d, "call flip(g, axis=0)", "r", NULL,
       A("call\",\"args\":{\"fn\":\"flip\",\"args\":[$g],\"kwargs\":{\"axis\":0}}"));
    READS(d, "flip(g, axis=0) is [2, 1, 3]", "r",
          "{\"dtype\":\"float64\",\"shape\":[3],\"data\":[2,1,3]}");
    ERR(d, "flip(g, 0): axis is keyword-only, so two positional arguments are TypeError",
        "TypeError", "library", A("call\",\"args\":{\"fn\":\"flip\",\"args\":[$g,0]}"));
    LACKS(d, "a keyword flip has not is lacking as flip(kind=)", "flip(kind=)", NULL,
          A("call\",\"args\":{\"fn\":\"flip\",\"args\":[$g],\"kwargs\":{\"kind\":1}}"));
    ERR(d, "flip(g, axis=1.5) is TypeError", "TypeError", "library",
        A("call\",\"args\":{\"fn\":\"flip\",\"args\":[$g],\"kwargs\":{\"axis\":1.5}}"));
    OK(d, "call expand_dims(g, axis=0)", "e", NULL,
       A("call\",\"args\":{\"fn\":\"expand_dims\",\"args\":[$g],\"kwargs\":{\"axis\":0}}"));
    OK(d, "call squeeze(e, 0): axis by position", "r", NULL,
       A("call\",\"args\":{\"fn\":\"squeeze\",\"args\":[$e,0]}"));
    READS(d, "squeeze(e, 0) is g", "r", "{\"dtype\":\"float64\",\"shape\":[3],\"data\":[3,1,2]}");
    OK(d, "call squeeze(e, axis=(0,)): axis by keyword", "r", NULL,
       A("call\",\"args\":{\"fn\":\"squeeze\",\"args\":[$e],"
         "\"kwargs\":{\"axis\":{\"tuple\":[0]}}}"));
    READS(d, "squeeze(e, axis=(0,)) is g", "r",
          "{\"dtype\":\"float64\",\"shape\":[3],\"data\":[3,1,2]}");
    ERR(d, "squeeze(e) misses its required axis: TypeError", "TypeError", "library",
        A("call\",\"args\":{\"fn\":\"squeeze\",\"args\":[$e]}"));
    ERR(d, "squeeze(e, 0, axis=0) gives axis twice: TypeError", "TypeError", "library",
        A("call\",\"args\":{\"fn\":\"squeeze\",\"args\":[$e,0],\"kwargs\":{\"axis\":0}}"));
    OK(d, "call tile(g, (2,))", "r", NULL,
       A("call\",\"args\":{\"fn\":\"tile\",\"args\":[$g,{\"tuple\":[2]}]}"));
    READS(d, "tile(g, (2,)) is g twice", "r",
          "{\"dtype\":\"float64\",\"shape\":[6],\"data\":[3,1,2,3,1,2]}");
    LACKS(d, "tile's repetitions is positional-only: by keyword it is lacking",
          "tile(repetitions=)", NULL,
          A("call\",\"args\":{\"fn\":\"tile\",\"args\":[$g],"
            "\"kwargs\":{\"repetitions\":{\"tuple\":[2]}}}"));
}

/* An array rtol (ra_linalg_matrix_rank_rtols, ra_linalg_pinv_rtols): the stack diag(4, 1)
 * (singular values 4, 1) and [[0, 2], [1, 0]] (2, 1) with rtol [0.1, 0.6] cuts at 0.4 and
 * 1.2: ranks 2 and 1; the second pseudo-inverse keeps 2 only: e2 e1^T / 2 = [[0, 0],
 * [0.5, 0]], the first is diag(1/4, 1). rtol on another device than x is DEV-DS-11. */
static void call_array_rtol(drv *d)
{
    OK(d, "st = [diag(4, 1), [[0, 2], [1, 0]]]", "st", NULL,
       A("array.asarray\",\"args\":{\"obj\":{\"dtype\":\"float64\",\"shape\":[2,2,2],"
         "\"data\":[4,0,0,1,0,2,1,0]},\"device\":$cpu}"));
    OK(d, "rt = [0.1, 0.6]", "rt", NULL,
       A("array.asarray\",\"args\":{\"obj\":{\"dtype\":\"float64\",\"shape\":[2],"
         "\"data\":[0.1,0.6]},\"device\":$cpu}"));
    OK(d, "call linalg.matrix_rank(st, rtol=rt)", "r", NULL,
       A("call\",\"args\":{\"fn\":\"linalg.matrix_rank\",\"args\":[$st],"
         "\"kwargs\":{\"rtol\":$rt}}"));
    READS(d, "an rtol per matrix gives ranks 2 and 1", "r",
          "{\"dtype\":\"int64\",\"shape\":[2],\"data\":[2,1]}");
    OK(d, "call linalg.pinv(st, rtol=rt)", "r", NULL,
       A("call\",\"args\":{\"fn\":\"linalg.pinv\",\"args\":[$st],\"kwargs\":{\"rtol\":$rt}}"));
    READS(d, "pinv with an rtol per matrix", "r",
          "{\"dtype\":\"float64\",\"shape\":[2,2,2],\"data\":[0.25,0,0,1,0,0,0.5,0]}");
    OK(d, "ri = [0, 1] int64", "ri", NULL,
       A("array.asarray\",\"args\":{\"obj\":{\"dtype\":\"int64\",\"shape\":[2],"
         "\"data\":[0,1]},\"device\":$cpu}"));
    ERR(d, "an int64 rtol is TypeError", "TypeError", "library",
        A("call\",\"args\":{\"fn\":\"linalg.matrix_rank\",\"args\":[$st],"
          "\"kwargs\":{\"rtol\":$ri}}"));
    if (ndev < 2) {
        drv_skip_part("DEV-DS-11: rtol on another device than x raises",
                      "needs a second device (build with OpenCL; POCL_DEVICES)");
        return;
    }
    OK(d, "rt on gpu:0", "rtg", NULL,
       A("array.to_device\",\"args\":{\"array\":$rt,\"device\":$gpu0}"));
    ERR(d, "DEV-DS-11: pinv with rtol on another device than x raises", "ValueError", "library",
        A("call\",\"args\":{\"fn\":\"linalg.pinv\",\"args\":[$st],\"kwargs\":{\"rtol\":$rtg}}"));
}

/* The linalg, linear algebra and fft names (call_linalg.c): the standard's keywords reach
 * refarray_fn_linalg.h, a named tuple comes back whole or by pick, and rtol is a float or an
 * array. Expected values derived in the comments. */
DT_TEST(call_linalg)
{
    need_hello();
    drv *d = drv_shared;
    OK(d, "m = [[4, 2], [2, 5]] float64", "m", NULL,
       A("array.asarray\",\"args\":{\"obj\":{\"dtype\":\"float64\",\"shape\":[2,2],"
         "\"data\":[4,2,2,5]},\"device\":$cpu}"));
    /* L = [[2, 0], [1, 2]]: L L^T = [[4, 2], [2, 5]]; upper is L^T */
    OK(d, "call linalg.cholesky(m, upper=True)", "r", NULL,
       A("call\",\"args\":{\"fn\":\"linalg.cholesky\",\"args\":[$m],"
         "\"kwargs\":{\"upper\":true}}"));
    READS(d, "cholesky(m, upper=True) is [[2, 1], [0, 2]]", "r",
          "{\"dtype\":\"float64\",\"shape\":[2,2],\"data\":[2,1,0,2]}");
    OK(d, "linalg.slogdet(m) is a pair of handles", NULL, "[\"*\",\"*\"]",
       A("call\",\"args\":{\"fn\":\"linalg.slogdet\",\"args\":[$m]}"));
    /* det 4 * 5 - 2 * 2 = 16: sign 1 */
    OK(d, "call linalg.slogdet(m) pick 0", "r", NULL,
       A("call\",\"args\":{\"fn\":\"linalg.slogdet\",\"args\":[$m],\"pick\":0}"));
    READS(d, "slogdet's sign is 1", "r", "{\"dtype\":\"float64\",\"shape\":[],\"data\":[1]}");
    OK(d, "call linalg.qr(m, mode='complete') pick 0", "r", NULL,
       A("call\",\"args\":{\"fn\":\"linalg.qr\",\"args\":[$m],"
         "\"kwargs\":{\"mode\":\"complete\"},\"pick\":0}"));
    OK(d, "Q is 2 x 2", NULL, "{\"shape\":[2,2]}", A("array.describe\",\"args\":{\"array\":$r}"));
    ERR(d, "qr mode='r' is ValueError", "ValueError", "library",
        A("call\",\"args\":{\"fn\":\"linalg.qr\",\"args\":[$m],\"kwargs\":{\"mode\":\"r\"}}"));
    /* the norms of [[4, 2], [2, 5]]: row sums 6 and 7 (inf: 7), column sums 6 and 7 (-1: 6) */
    OK(d, "call matrix_norm(m, ord=inf, keepdims=True)", "r", NULL,
       A("call\",\"args\":{\"fn\":\"linalg.matrix_norm\",\"args\":[$m],"
         "\"kwargs\":{\"ord\":{\"scalar\":\"inf\"},\"keepdims\":true}}"));
    READS(d, "matrix_norm(m, ord=inf) is [[7]]", "r",
          "{\"dtype\":\"float64\",\"shape\":[1,1],\"data\":[7]}");
    OK(d, "call matrix_norm(m, ord=-1)", "r", NULL,
       A("call\",\"args\":{\"fn\":\"linalg.matrix_norm\",\"args\":[$m],"
         "\"kwargs\":{\"ord\":-1}}"));
    READS(d, "matrix_norm(m, ord=-1) is 6", "r",
          "{\"dtype\":\"float64\",\"shape\":[],\"data\":[6]}");
    ERR(d, "matrix_norm ord=3 is ValueError", "ValueError", "library",
        A("call\",\"args\":{\"fn\":\"linalg.matrix_norm\",\"args\":[$m],\"kwargs\":{\"ord\":3}}"));
    /* vector_norm over both axes with ord 1: 4 + 2 + 2 + 5 = 13 */
    OK(d, "call vector_norm(m, axis=(0, 1), ord=1)", "r", NULL,
       A("call\",\"args\":{\"fn\":\"linalg.vector_norm\",\"args\":[$m],"
         "\"kwargs\":{\"axis\":{\"tuple\":[0,1]},\"ord\":1}}"));
    READS(d, "vector_norm(m, ord=1) is 13", "r",
          "{\"dtype\":\"float64\",\"shape\":[],\"data\":[13]}");
    /* tensordot(m, m, axes=([1], [0])) is m @ m = [[20, 18], [18, 29]] */
    OK(d, "call tensordot(m, m, axes=([1], [0]))", "r", NULL,
       A("call\",\"args\":{\"fn\":\"tensordot\",\"args\":[$m,$m],"
         "\"kwargs\":{\"axes\":{\"tuple\":[{\"list\":[1]},{\"list\":[0]}]}}}"));
    READS(d, "tensordot is m @ m", "r",
          "{\"dtype\":\"float64\",\"shape\":[2,2],\"data\":[20,18,18,29]}");
    /* [[1, 1], [0, 1]]^-3 = [[1, -3], [0, 1]], n positional */
    OK(d, "s = [[1, 1], [0, 1]]", "s", NULL,
       A("array.asarray\",\"args\":{\"obj\":{\"dtype\":\"float64\",\"shape\":[2,2],"
         "\"data\":[1,1,0,1]},\"device\":$cpu}"));
    OK(d, "call matrix_power(s, -3)", "r", NULL,
       A("call\",\"args\":{\"fn\":\"linalg.matrix_power\",\"args\":[$s,-3]}"));
    READS(d, "matrix_power(s, -3) is [[1, -3], [0, 1]]", "r",
          "{\"dtype\":\"float64\",\"shape\":[2,2],\"data\":[1,-3,0,1]}");
    /* fftshift along axis 1 of [[4, 2], [2, 5]]: each row rolled by one */
    OK(d, "call fft.fftshift(m, axes=1)", "r", NULL,
       A("call\",\"args\":{\"fn\":\"fft.fftshift\",\"args\":[$m],\"kwargs\":{\"axes\":1}}"));
    READS(d, "fftshift(m, axes=1) is [[2, 4], [5, 2]]", "r",
          "{\"dtype\":\"float64\",\"shape\":[2,2],\"data\":[2,4,5,2]}");
    /* rfft of the row [4, 2] with norm='forward': (4 + 2) / 2 = 3, (4 - 2) / 2 = 1 */
    OK(d, "call fft.rfft(m, n=2, axis=1, norm='forward')", "r", NULL,
       A("call\",\"args\":{\"fn\":\"fft.rfft\",\"args\":[$m],"
         "\"kwargs\":{\"n\":2,\"axis\":1,\"norm\":\"forward\"}}"));
    READS(d, "rfft is [[3, 1], [3.5, -1.5]]", "r",
          "{\"dtype\":\"complex128\",\"shape\":[2,2],\"data\":[[3,0],[1,0],[3.5,0],[-1.5,0]]}");
    ERR(d, "fft norm='half' is ValueError", "ValueError", "library",
        A("call\",\"args\":{\"fn\":\"fft.fft\",\"args\":[$m],\"kwargs\":{\"norm\":\"half\"}}"));
    ERR(d, "fft n=0 is ValueError", "ValueError", "library",
        A("call\",\"args\":{\"fn\":\"fft.fft\",\"args\":[$m],\"kwargs\":{\"n\":0}}"));
    OK(d, "z = [[1, 2], [2, 4]] (row 2 = 2 row 1)", "z", NULL,
       A("array.asarray\",\"args\":{\"obj\":{\"dtype\":\"float64\",\"shape\":[2,2],"
         "\"data\":[1,2,2,4]},\"device\":$cpu}"));
    ERR(d, "inv of a singular matrix is ValueError", "ValueError", "library",
        A("call\",\"args\":{\"fn\":\"linalg.inv\",\"args\":[$z]}"));
    call_array_rtol(d);
}

/* The tuple result of `reply` (which it deletes), checked to hold n handles; item k is then
 * bound to $item by item(). The caller deletes the list returned. */
static cJSON *tuple_items(cJSON *reply, int n, const char *what)
{
    cJSON *list = cJSON_DetachItemFromObjectCaseSensitive(reply, "result");
    char *got = cJSON_PrintUnformatted(reply);
    bool pass = cJSON_IsArray(list) && cJSON_GetArraySize(list) == n;
    cJSON_Delete(reply);
    if (!pass) cJSON_Delete(list);
    drv_check(pass, "%s: %d handles (observed %.300s)", what, n, got);
    free(got);
    return list;
}

/* Binds $item to item k of list. */
static void item(drv *d, const cJSON *list, int k)
{
    drv_bind(d, "item", cJSON_GetArrayItem(list, k));
}

/* Makes one array by the request (an array.asarray on the many-result device) and appends its
 * handle's JSON text to args (a comma before all but the first). */
static void append_array(drv *d, char *args, size_t cap, const char *what, const char *request)
{
    cJSON *reply = drv_send(d, __FILE__, __LINE__, "%s", request);
    const cJSON *h = cJSON_GetObjectItemCaseSensitive(reply, "result");
    drv_check(cJSON_IsString(h), "%s", what);
    size_t len = strlen(args);
    snprintf(args + len, cap - len, "%s\"%s\"", len ? "," : "", h->valuestring);
    cJSON_Delete(reply);
}

/* The device of the many-result checks: gpu:0 where there is one, so that "on x's device"
 * is not the default device's doing; cpu otherwise. */
static const char *many_device(void)
{
    return ndev >= 2 ? "gpu0" : "cpu";
}

/* Item k of list is read as want and is on the many-result device (DEV-DS-10). */
static void item_is(drv *d, const cJSON *list, int k, const char *what, const char *want)
{
    char name[160];
    item(d, list, k);
    snprintf(name, sizeof name, "%s[%d] is %s", what, k, want);
    READS(d, name, "item", want);
    snprintf(name, sizeof name, "DEV-DS-10: %s[%d] is on its input's device", what, k);
    ON_DEVICE(d, name, "item", many_device());
}

/* unstack of a [40, 2] array gives 40 arrays (more than DS_CALL_MAX_RESULTS in place), row
 * k = [2k, 2k + 1], each on x's device; pick reaches the last. */
static void call_unstack_many(drv *d)
{
    char data[512] = "";
    for (int i = 0; i < 80; i++)
        snprintf(data + strlen(data), sizeof data - strlen(data), "%s%d", i ? "," : "", i);
    OK(d, "x = arange(80).reshape(40, 2) float64", "x40", NULL,
       A("array.asarray\",\"args\":{\"obj\":{\"dtype\":\"float64\",\"shape\":[40,2],"
         "\"data\":[%s]},\"device\":$%s}"),
       data, many_device());
    cJSON *list = tuple_items(
        drv_send(d, __FILE__, __LINE__, A("call\",\"args\":{\"fn\":\"unstack\",\"args\":[$x40]}")),
        40, "unstack(x) of 40 rows");
    for (int k = 0; k < 40; k++) {
        char want[96];
        snprintf(want, sizeof want, "{\"dtype\":\"float64\",\"shape\":[2],\"data\":[%d,%d]}", 2 * k,
                 2 * k + 1);
        item_is(d, list, k, "unstack(x)", want);
    }
    cJSON_Delete(list);
    OK(d, "call unstack(x) pick 39", "r", NULL,
       A("call\",\"args\":{\"fn\":\"unstack\",\"args\":[$x40],\"pick\":39}"));
    READS(d, "unstack(x)[39] by pick is [78, 79]", "r",
          "{\"dtype\":\"float64\",\"shape\":[2],\"data\":[78,79]}");
}

/* meshgrid of 20 arrays, indexing='ij': v0 = [1, 2], vk = [k + 1] (k >= 1) give 20 arrays of
 * shape (2, 1, ..., 1): output 0 is v0 along axis 0, output k repeats k + 1. */
static void call_meshgrid_many(drv *d)
{
    char args[1024] = "", shape[128] = "", request[256];
    for (int k = 0; k < 20; k++) {
        char what[32];
        snprintf(what, sizeof what, "v_%d", k);
        char data[8] = "1,2";
        if (k) snprintf(data, sizeof data, "%d", k + 1);
        snprintf(request, sizeof request,
                 A("array.asarray\",\"args\":{\"obj\":{\"dtype\":\"float64\",\"shape\":[%d],"
                   "\"data\":[%s]},\"device\":$%s}"),
                 k ? 1 : 2, data, many_device());
        append_array(d, args, sizeof args, what, request);
        snprintf(shape + strlen(shape), sizeof shape - strlen(shape), "%s%d", k ? "," : "",
                 k ? 1 : 2);
    }
    cJSON *list = tuple_items(drv_send(d, __FILE__, __LINE__,
                                       A("call\",\"args\":{\"fn\":\"meshgrid\",\"args\":[%s],"
                                         "\"kwargs\":{\"indexing\":\"ij\"}}"),
                                       args),
                              20, "meshgrid of 20 arrays");
    for (int k = 0; k < 20; k++) {
        char want[256];
        snprintf(want, sizeof want, "{\"dtype\":\"float64\",\"shape\":[%s],\"data\":[%d,%d]}",
                 shape, k ? k + 1 : 1, k ? k + 1 : 2);
        item_is(d, list, k, "meshgrid(v_0, ..., v_19, indexing='ij')", want);
    }
    cJSON_Delete(list);
}

/* broadcast_arrays of 17 arrays: b0 = [[0], [1]] (2, 1), bk = [k, k + 100] (2,) for k >= 1;
 * all broadcast to (2, 2): b0 to [[0, 0], [1, 1]], bk to [[k, k + 100], [k, k + 100]]. */
static void call_broadcast_many(drv *d)
{
    char args[512] = "", request[256];
    for (int k = 0; k < 17; k++) {
        char what[32];
        snprintf(what, sizeof what, "b_%d", k);
        if (k == 0)
            snprintf(request, sizeof request,
                     A("array.asarray\",\"args\":{\"obj\":{\"dtype\":\"int64\",\"shape\":[2,1],"
                       "\"data\":[0,1]},\"device\":$%s}"),
                     many_device());
        else
            snprintf(request, sizeof request,
                     A("array.asarray\",\"args\":{\"obj\":{\"dtype\":\"int64\",\"shape\":[2],"
                       "\"data\":[%d,%d]},\"device\":$%s}"),
                     k, k + 100, many_device());
        append_array(d, args, sizeof args, what, request);
    }
    cJSON *list = tuple_items(
        drv_send(d, __FILE__, __LINE__,
                 A("call\",\"args\":{\"fn\":\"broadcast_arrays\",\"args\":[%s]}"), args),
        17, "broadcast_arrays of 17 arrays");
    for (int k = 0; k < 17; k++) {
        char want[128];
        if (k == 0)
            snprintf(want, sizeof want, "{\"dtype\":\"int64\",\"shape\":[2,2],\"data\":[0,0,1,1]}");
        else
            snprintf(want, sizeof want,
                     "{\"dtype\":\"int64\",\"shape\":[2,2],\"data\":[%d,%d,%d,%d]}", k, k + 100, k,
                     k + 100);
        item_is(d, list, k, "broadcast_arrays(b_0, ..., b_16)", want);
    }
    cJSON_Delete(list);
}

/* Tuples of more arrays than DS_CALL_MAX_RESULTS holds in place come back whole (the room of
 * ds_call_result_reserve), each array on its inputs' device. */
DT_TEST(call_many_results)
{
    need_hello();
    drv *d = drv_shared;
    if (ndev < 2) dt_diag("one device: the many-result arrays are checked on cpu only");
    call_unstack_many(d);
    call_meshgrid_many(d);
    call_broadcast_many(d);
}

/* The uint64 elements of an array.read reply (decimal strings beyond 2^53) are `want`. */
static void read_uint64(drv *d, const char *name, const uint64_t *want, int n)
{
    cJSON *reply = drv_send(d, __FILE__, __LINE__, A("array.read\",\"args\":{\"array\":$r}"));
    const cJSON *data =
        cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(reply, "result"), "data");
    bool ok = cJSON_GetArraySize(data) == n;
    for (int k = 0; ok && k < n; k++) {
        char text[32];
        snprintf(text, sizeof text, "%llu", (unsigned long long)want[k]);
        const cJSON *e = cJSON_GetArrayItem(data, k);
        ok = cJSON_IsString(e) && strcmp(e->valuestring, text) == 0;
    }
    char *got = cJSON_PrintUnformatted(reply);
    drv_check(ok, "%s (observed %s)", name, got);
    free(got);
    cJSON_Delete(reply);
}

/* Python ints in [2^63, 2^64) reach refarray exactly, by array.binary and by call; beyond
 * 2^64 - 1 they are OverflowError without a call (spec/decisions.md, "Exact values and
 * strings" 8). Expected sums computed in uint64. */
DT_TEST(wide_int_scalars)
{
    need_hello();
    drv *d = drv_shared;
    const uint64_t two63 = UINT64_C(1) << 63;
    const uint64_t sums[2] = {two63 + 2, two63 + 3};
    OK(d, "u = [2, 3] uint64", "u", NULL,
       A("array.asarray\",\"args\":{\"obj\":{\"dtype\":\"uint64\",\"shape\":[2],"
         "\"data\":[2,3]},\"device\":$cpu}"));
    OK(d, "u + 2^63 by array.binary", "r", NULL,
       A("array.binary\",\"args\":{\"fn\":\"add\",\"x1\":$u,"
         "\"x2\":{\"scalar\":\"9223372036854775808\"}}"));
    read_uint64(d, "array.binary: uint64 [2, 3] + 2^63 is [2^63 + 2, 2^63 + 3]", sums, 2);
    OK(d, "u + 2^63 by call", "r", NULL,
       A("call\",\"args\":{\"fn\":\"add\",\"args\":[$u,{\"scalar\":\"9223372036854775808\"}]}"));
    read_uint64(d, "call: uint64 [2, 3] + 2^63 is [2^63 + 2, 2^63 + 3]", sums, 2);
    /* The functions of two floating operands take it too: copysign(f, 2^63) is |f|, where a
     * 2^63 read as int64 (-2^63) would give -|f|. */
    OK(d, "f = [1, -2] float64", "f", NULL,
       A("array.asarray\",\"args\":{\"obj\":{\"dtype\":\"float64\",\"shape\":[2],"
         "\"data\":[1,-2]},\"device\":$cpu}"));
    OK(d, "call copysign(f, 2^63)", "r", NULL,
       A("call\",\"args\":{\"fn\":\"copysign\",\"args\":[$f,{\"scalar\":"
         "\"9223372036854775808\"}]}"));
    READS(d, "copysign(f, 2^63) is [1, 2]", "r",
          "{\"dtype\":\"float64\",\"shape\":[2],\"data\":[1,2]}");
    ERR(d, "u + 2^64 is OverflowError", "OverflowError", "library",
        A("array.binary\",\"args\":{\"fn\":\"add\",\"x1\":$u,"
          "\"x2\":{\"scalar\":\"18446744073709551616\"}}"));
    ERR(d, "u - (-2^63 - 1) is OverflowError", "OverflowError", "library",
        A("array.binary\",\"args\":{\"fn\":\"subtract\",\"x1\":$u,"
          "\"x2\":{\"scalar\":\"-9223372036854775809\"}}"));
    OK(d, "i = [2, 3] int64", "i", NULL,
       A("array.asarray\",\"args\":{\"obj\":{\"dtype\":\"int64\",\"shape\":[2],"
         "\"data\":[2,3]},\"device\":$cpu}"));
    ERR(d, "int64 + 2^63 is out of int64 (refarray's ValueError)", "ValueError", "library",
        A("array.binary\",\"args\":{\"fn\":\"add\",\"x1\":$i,"
          "\"x2\":{\"scalar\":\"9223372036854775808\"}}"));
    ERR(d, "sum(u, axis=2^63) is OverflowError", "OverflowError", "library",
        A("call\",\"args\":{\"fn\":\"sum\",\"args\":[$u],"
          "\"kwargs\":{\"axis\":{\"scalar\":\"9223372036854775808\"}}}"));
}

DRV_MAIN(DT_ENTRY(hello), DT_ENTRY(memory_limit_ops), DT_ENTRY(devices_ops), DT_ENTRY(creation_ops),
         DT_ENTRY(conversion_ops), DT_ENTRY(operations_ops), DT_ENTRY(defaults_ops),
         DT_ENTRY(utilities_ops), DT_ENTRY(promotion_tri_live_ops), DT_ENTRY(multi_device_ops),
         DT_ENTRY(sharding_ops), DT_ENTRY(out_and_dtypes_ops), DT_ENTRY(global_ops_ops),
         DT_ENTRY(call_ops), DT_ENTRY(call_elementwise), DT_ENTRY(call_shape),
         DT_ENTRY(call_generated), DT_ENTRY(call_linalg), DT_ENTRY(call_many_results),
         DT_ENTRY(wide_int_scalars), DT_ENTRY(bye))
