#ifndef PACK_SYSTEM_H
#define PACK_SYSTEM_H

#include <sys/timex.h>
#include <sys/ioctl.h>
#include <fcntl.h>
#include <stdint.h>
#include <linux/gpio.h>
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

// MARK: GPIO (the kernel's GPIO character device, uAPI v2, Linux 5.10+)

/// Requests one line of a GPIO chip (`/dev/gpiochip0`) for the pack's button or LED and returns
/// the line's descriptor, or -1 with errno set. An input reports both edges (with the kernel's
/// debounce when asked, emulated by gpiolib where the chip has none) and may be pulled up; an
/// output starts at `initial`. `active_low` inverts both, so that 1 is "pressed" or "lit".
static inline int pack_gpio_request(const char *chip, unsigned int line, int output, int active_low, int pull_up,
                                    unsigned int debounce_us, int initial, const char *consumer) {
    int chip_fd = open(chip, O_RDWR | O_CLOEXEC);
    if (chip_fd < 0) return -1;
    struct gpio_v2_line_request request;
    memset(&request, 0, sizeof request);
    request.offsets[0] = line;
    request.num_lines = 1;
    strncpy(request.consumer, consumer, sizeof request.consumer - 1);
    uint64_t flags = output ? GPIO_V2_LINE_FLAG_OUTPUT
                            : (GPIO_V2_LINE_FLAG_INPUT | GPIO_V2_LINE_FLAG_EDGE_RISING | GPIO_V2_LINE_FLAG_EDGE_FALLING);
    if (active_low) flags |= GPIO_V2_LINE_FLAG_ACTIVE_LOW;
    if (!output && pull_up) flags |= GPIO_V2_LINE_FLAG_BIAS_PULL_UP;
    request.config.flags = flags;
    unsigned int attributes = 0;
    if (output) {
        request.config.attrs[attributes].attr.id = GPIO_V2_LINE_ATTR_ID_OUTPUT_VALUES;
        request.config.attrs[attributes].attr.values = initial ? 1 : 0;
        request.config.attrs[attributes].mask = 1;
        attributes++;
    } else if (debounce_us > 0) {
        request.config.attrs[attributes].attr.id = GPIO_V2_LINE_ATTR_ID_DEBOUNCE;
        request.config.attrs[attributes].attr.debounce_period_us = debounce_us;
        request.config.attrs[attributes].mask = 1;
        attributes++;
    }
    request.config.num_attrs = attributes;
    int result = ioctl(chip_fd, GPIO_V2_GET_LINE_IOCTL, &request);
    int saved = errno;
    close(chip_fd);
    errno = saved;
    return result < 0 ? -1 : request.fd;
}

/// Sets an output line (1 lit, 0 dark, after active-low). 0, or -1 with errno set.
static inline int pack_gpio_set(int line_fd, int value) {
    struct gpio_v2_line_values values;
    memset(&values, 0, sizeof values);
    values.bits = value ? 1 : 0;
    values.mask = 1;
    return ioctl(line_fd, GPIO_V2_LINE_SET_VALUES_IOCTL, &values);
}

/// Reads one edge event: its CLOCK_MONOTONIC time and whether the line became active (pressed).
/// 0, or -1 with errno set.
static inline int pack_gpio_read_edge(int line_fd, uint64_t *timestamp_ns, int *active) {
    struct gpio_v2_line_event event;
    ssize_t n;
    do {
        n = read(line_fd, &event, sizeof event);
    } while (n < 0 && errno == EINTR);
    if (n < 0) return -1;
    if (n != (ssize_t)sizeof event) {
        errno = EIO;
        return -1;
    }
    *timestamp_ns = event.timestamp_ns;
    *active = event.id == GPIO_V2_LINE_EVENT_RISING_EDGE;
    return 0;
}

#endif
