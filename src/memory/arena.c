/* SPDX-License-Identifier: Apache-2.0 */
/*
** arena.c -- the first-fit arena placement of arena.h.
*/
#include <string.h>

#include "memory/arena.h"

size_t wnn__arena_place(wnn__arena_block *live, uint32_t *n, size_t size, uint32_t id)
{
    size_t at = 0;
    uint32_t i = 0;
    for (; i < *n; i++) {
        if (live[i].offset >= at + size)
            break;
        size_t end = live[i].offset + live[i].size;
        if (end > at)
            at = end;
    }
    memmove(&live[i + 1], &live[i], sizeof *live * (*n - i));
    live[i] = (wnn__arena_block){at, size, id};
    (*n)++;
    return at;
}

void wnn__arena_unplace(wnn__arena_block *live, uint32_t *n, uint32_t id)
{
    for (uint32_t i = 0; i < *n; i++)
        if (live[i].id == id) {
            memmove(&live[i], &live[i + 1], sizeof *live * (*n - i - 1));
            (*n)--;
            return;
        }
}
