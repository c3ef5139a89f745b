/* status.c: the status table's names, messages and kinds, and the library version. */
#include "internal.h"

#define RA_STR_(x) #x
#define RA_XSTR_(x) RA_STR_(x)

const char *ra_version(void)
{
    return RA_XSTR_(RA_VERSION_MAJOR) "." RA_XSTR_(RA_VERSION_MINOR) "." RA_XSTR_(RA_VERSION_PATCH);
}

int ra_version_number(void)
{
    return RA_VERSION_NUMBER;
}

const char *ra_status_name(int status)
{
    switch (status) {
    case RA_OK:
        return "RA_OK";
#define NAME_CASE(name, value, message, kind)                                                      \
    case value:                                                                                    \
        return #name;
        RA_STATUS_TABLE(NAME_CASE)
#undef NAME_CASE
    }
    return "RA_E_UNKNOWN";
}

const char *ra_status_message(int status)
{
    switch (status) {
    case RA_OK:
        return "success";
#define MESSAGE_CASE(name, value, message, kind)                                                   \
    case value:                                                                                    \
        return message;
        RA_STATUS_TABLE(MESSAGE_CASE)
#undef MESSAGE_CASE
    }
    return "unknown status";
}

const char *ra_status_kind(int status)
{
    switch (status) {
    case RA_OK:
        return NULL;
#define KIND_CASE(name, value, message, kind)                                                      \
    case value:                                                                                    \
        return kind;
        RA_STATUS_TABLE(KIND_CASE)
#undef KIND_CASE
    }
    /* An unknown negative value can only come from a newer library or a caller's mistake;
     * RuntimeError is the kind Python uses for "something went wrong" without a class. */
    return "RuntimeError";
}
