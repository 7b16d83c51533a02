/* SPDX-License-Identifier: Apache-2.0 */
/*
** arena.h -- first-fit placement of a graph's intermediates in one arena.
**
** A compiled graph walks its nodes in order, places each value it produces
** among the blocks still alive, and frees a block after its last reader, so
** values whose lifetimes do not overlap share memory. Every backend plans
** its arena with these two calls.
*/
#ifndef WNN_MEMORY_ARENA_H
#define WNN_MEMORY_ARENA_H

#include <stddef.h>
#include <stdint.h>

typedef struct wnn__arena_block {
    size_t offset, size;
    uint32_t id;
} wnn__arena_block;

/* Places a block of size bytes for id at the lowest offset that fits among
** the *n live blocks (kept sorted by offset; the array must have room for one
** more) and returns that offset. */
size_t wnn__arena_place(wnn__arena_block *live, uint32_t *n, size_t size, uint32_t id);

/* Frees id's block, if live. */
void wnn__arena_unplace(wnn__arena_block *live, uint32_t *n, uint32_t id);

#endif
