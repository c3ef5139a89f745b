/* Tests of the status table: names, messages and kinds. */
#include "ra_test.h"

DT_TEST(status)
{
    ASSERT_STR(ra_status_name(RA_OK), "RA_OK", "RA_OK has its name");
    ASSERT_STR(ra_status_message(RA_OK), "success", "RA_OK has its message");
    CHECK(ra_status_kind(RA_OK) == NULL, "RA_OK has no kind");
    ASSERT_STR(ra_status_name(-9999), "RA_E_UNKNOWN", "an unknown status is named RA_E_UNKNOWN");
    ASSERT_STR(ra_status_message(-9999), "unknown status", "an unknown status has a message");
    ASSERT_STR(ra_status_kind(-9999), "RuntimeError", "an unknown status is a RuntimeError");

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
        CHECK(v < 0 && unique && strncmp(ra_status_name(v), "RA_E_", 5) == 0 &&
                  strcmp(ra_status_message(v), "unknown status") != 0 && kind_ok,
              "%s (%d): negative, unique, message '%s', kind %s", ra_status_name(v), v,
              ra_status_message(v), ra_status_kind(v));
    }
    /* The kinds the standard names for the device errors (DRAFT-STR-9: ValueError). */
    ASSERT_STR(ra_status_kind(RA_E_DEVICE_SYNTAX), "ValueError", "DRAFT-STR-9: malformed device");
    ASSERT_STR(ra_status_kind(RA_E_DEVICE_TYPE), "ValueError", "DRAFT-STR-9: unknown device type");
    ASSERT_STR(ra_status_kind(RA_E_DEVICE_UNAVAILABLE), "ValueError",
               "DRAFT-STR-9: unavailable device");
    ASSERT_STR(ra_status_kind(RA_E_DEVICE_MISMATCH), "ValueError",
               "DEV-DS-11: mixed devices are a ValueError in refarray");
    ASSERT_STR(ra_status_kind(RA_E_NOMEM), "MemoryError", "out of memory is a MemoryError");
    ASSERT_STR(ra_status_kind(RA_E_BUFFER), "BufferError", "a wrong buffer is a BufferError");
    ASSERT_STR(ra_status_kind(RA_E_NOT_MEASURABLE), "NotImplementedError",
               "an unmeasurable utility is a NotImplementedError");
    ASSERT_STR(ra_version(), "0.2.0", "ra_version gives MAJOR.MINOR.PATCH");
    ASSERT_INT(RA_VERSION_NUMBER, 2000, "RA_VERSION_NUMBER of 0.2.0 is 2000");
    ASSERT_INT(ra_version_number(), RA_VERSION_NUMBER, "the library's number is the header's");
}

DT_MAIN(DT_ENTRY(status))
