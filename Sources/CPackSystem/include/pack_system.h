#ifndef PACK_SYSTEM_H
#define PACK_SYSTEM_H

#include <sys/timex.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <errno.h>
#include <stddef.h>
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

/// Sends one datagram to a Unix socket named by path, or by "@name" in the abstract namespace:
/// the transport of systemd's notify protocol (sd_notify(3)) and of the journal's native
/// protocol. Returns 0, or -1 with errno set.
static inline int pack_unix_datagram_send(const char *path, const void *bytes, size_t length) {
    struct sockaddr_un address;
    memset(&address, 0, sizeof address);
    address.sun_family = AF_UNIX;
    size_t path_length = strlen(path);
    if (path_length == 0 || path_length >= sizeof address.sun_path) {
        errno = EINVAL;
        return -1;
    }
    memcpy(address.sun_path, path, path_length);
    if (path[0] == '@') address.sun_path[0] = '\0';
    socklen_t address_length = (socklen_t)(offsetof(struct sockaddr_un, sun_path) + path_length);
    int fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
    if (fd < 0) return -1;
    ssize_t sent;
    do {
        sent = sendto(fd, bytes, length, MSG_NOSIGNAL, (struct sockaddr *)&address, address_length);
    } while (sent < 0 && errno == EINTR);
    int saved = errno;
    close(fd);
    errno = saved;
    return sent < 0 ? -1 : 0;
}

#endif
