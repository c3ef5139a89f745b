/* Tests of the status table: names, messages and kinds. */
#include "tap.h"

int main(void)
{
    EXPECT_STR(ra_status_name(RA_OK), "RA_OK", "RA_OK has its name");
    EXPECT_STR(ra_status_message(RA_OK), "success", "RA_OK has its message");
    OK(ra_status_kind(RA_OK) == NULL, "RA_OK has no kind");
    EXPECT_STR(ra_status_name(-9999), "RA_E_UNKNOWN", "an unknown status is named RA_E_UNKNOWN");
    EXPECT_STR(ra_status_message(-9999), "unknown status", "an unknown status has a message");
    EXPECT_STR(ra_status_kind(-9999), "RuntimeError", "an unknown status is a RuntimeError");

    /* Every entry: negative, unique, a name starting RA_E_, a message and a Python kind. */
    static const char *const kinds[] = {"ValueError",         "TypeError",   "IndexError",
                                        "MemoryError",        "BufferError", "RuntimeError",
                                        "NotImplementedError"};
    int values[] = {
#define VALUE(name, value, message, kind) value,
        RA_STATUS_TABLE(VALUE)
#undef VALUE
    };
    size_t n = sizeof values / sizeof values[0];
    for (size_t i = 0; i < n; i++) {
        int v = values[i];
        bool kind_ok = false;
        for (size_t k = 0; k < sizeof kinds / sizeof kinds[0]; k++)
            kind_ok = kind_ok || strcmp(ra_status_kind(v), kinds[k]) == 0;
        bool unique = true;
        for (size_t j = 0; j < i; j++)
            unique = unique && values[j] != v;
        OK(v < 0 && unique && strncmp(ra_status_name(v), "RA_E_", 5) == 0 &&
               strcmp(ra_status_message(v), "unknown status") != 0 && kind_ok,
           "%s (%d): negative, unique, message '%s', kind %s", ra_status_name(v), v,
           ra_status_message(v), ra_status_kind(v));
    }
    /* The kinds the standard names for the device errors (DRAFT-STR-9: ValueError). */
    EXPECT_STR(ra_status_kind(RA_E_DEVICE_SYNTAX), "ValueError", "DRAFT-STR-9: malformed device");
    EXPECT_STR(ra_status_kind(RA_E_DEVICE_TYPE), "ValueError", "DRAFT-STR-9: unknown device type");
    EXPECT_STR(ra_status_kind(RA_E_DEVICE_UNAVAILABLE), "ValueError",
               "DRAFT-STR-9: unavailable device");
    EXPECT_STR(ra_status_kind(RA_E_DEVICE_MISMATCH), "ValueError",
               "DEV-DS-11: mixed devices are a ValueError in refarray");
    EXPECT_STR(ra_status_kind(RA_E_NOMEM), "MemoryError", "out of memory is a MemoryError");
    EXPECT_STR(ra_status_kind(RA_E_BUFFER), "BufferError", "a wrong buffer is a BufferError");
    EXPECT_STR(ra_status_kind(RA_E_NOT_MEASURABLE), "NotImplementedError",
               "an unmeasurable utility is a NotImplementedError");
    EXPECT_STR(ra_version(), "0.2.0", "ra_version gives MAJOR.MINOR.PATCH");
    EXPECT_INT(RA_VERSION_NUMBER, 2000, "RA_VERSION_NUMBER of 0.2.0 is 2000");
    EXPECT_INT(ra_version_number(), RA_VERSION_NUMBER, "the library's number is the header's");
    return tap_done();
}
