#ifndef PACK_SYSTEM_H
#define PACK_SYSTEM_H

#include <sys/timex.h>
#include <sys/socket.h>
#include <linux/netlink.h>
#include <linux/rtnetlink.h>
#include <unistd.h>
#include <string.h>

/// 1 when the kernel says the system clock is synchronised, 0 when not, -1 when it cannot tell.
/// adjtimex(2) with modes 0 only reads: it needs no privileges.
static inline int pack_clock_synchronized(void) {
    struct timex tx = {0};
    int state = adjtimex(&tx);
    if (state < 0) return -1;
    return (state == TIME_ERROR || (tx.status & STA_UNSYNC)) ? 0 : 1;
}

/// A netlink socket subscribed to the kernel's link and address changes (an interface going up
/// or down, gaining or losing an address): how a pack hears that Wi-Fi came or went without
/// polling. Returns the descriptor, or -1 with errno set. Needs no privileges.
static inline int pack_netlink_route_socket(void) {
    int fd = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_ROUTE);
    if (fd < 0) return -1;
    struct sockaddr_nl address;
    memset(&address, 0, sizeof address);
    address.nl_family = AF_NETLINK;
    address.nl_groups = RTMGRP_LINK | RTMGRP_IPV4_IFADDR | RTMGRP_IPV6_IFADDR;
    if (bind(fd, (struct sockaddr *)&address, sizeof address) < 0) {
        close(fd);
        return -1;
    }
    return fd;
}

#endif
