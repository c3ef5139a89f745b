/* small_reply_check.h: the small reply reader (dsr__read_small_reply) checked against the full
 * one (dsr__parse_reply) on one line, shared by runner.units and the fuzz_small_reply
 * harness. */
#ifndef SMALL_REPLY_CHECK_H
#define SMALL_REPLY_CHECK_H

#include "devspec.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

/* Whether two trees are the same nodes: types (flags included), numbers to the bit, strings,
 * keys, order, and the links cJSON keeps (a first child's prev is the last child). */
static inline bool same_tree(const cJSON *a, const cJSON *b)
{
    if (a->type != b->type || a->valueint != b->valueint ||
        memcmp(&a->valuedouble, &b->valuedouble, sizeof a->valuedouble) != 0)
        return false;
    if ((a->valuestring == NULL) != (b->valuestring == NULL) ||
        (a->valuestring && strcmp(a->valuestring, b->valuestring)))
        return false;
    if ((a->string == NULL) != (b->string == NULL) || (a->string && strcmp(a->string, b->string)))
        return false;
    const cJSON *x = a->child, *y = b->child;
    if ((x == NULL) != (y == NULL)) return false;
    if (x && ((x->prev == NULL) != (y->prev == NULL))) return false;
    for (; x && y; x = x->next, y = y->next) {
        if (!same_tree(x, y)) return false;
        if (x->next && x->next->prev != x) return false;
        if (x->next == NULL && a->child->prev != x) return false;
    }
    return x == NULL && y == NULL;
}

/* The small reader on TEXT: 1 when it read it as dsr__parse_reply does, 0 when it declined,
 * -1 when it read something dsr__parse_reply refuses or reads otherwise. */
static inline int small_agrees(const char *text, size_t len)
{
    char *line = malloc(len + 1);
    if (line == NULL) abort();
    memcpy(line, text, len);
    line[len] = '\0';
    cJSON *fast = dsr__read_small_reply(line, len);
    const char *why = NULL;
    cJSON *full = fast ? dsr__parse_reply(line, len, &why) : NULL;
    int r = fast == NULL ? 0
            : full && dsr__utf8_invalid_at(line, len) < 0 && !dsr__duplicate_key(full) &&
                    same_tree(fast, full)
                ? 1
                : -1;
    cJSON_Delete(fast);
    cJSON_Delete(full);
    free(line);
    return r;
}

#endif
