#ifndef PACK_SYSTEM_H
#define PACK_SYSTEM_H

#include <sys/timex.h>

/// 1 when the kernel says the system clock is synchronised, 0 when not, -1 when it cannot tell.
/// adjtimex(2) with modes 0 only reads: it needs no privileges.
static inline int pack_clock_synchronized(void) {
    struct timex tx = {0};
    int state = adjtimex(&tx);
    if (state < 0) return -1;
    return (state == TIME_ERROR || (tx.status & STA_UNSYNC)) ? 0 : 1;
}

#endif
