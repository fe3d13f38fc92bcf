/* Which interface a route uses, asked of the kernel itself (route.h): a UDP socket
 * connected to the address (which sends nothing) has the source address the kernel
 * would choose, and the interface holding that address is the one. */
#include "core/route.h"

#include <ifaddrs.h>
#include <netdb.h>
#include <netinet/in.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

static bool same_address(const struct sockaddr *a, const struct sockaddr *b)
{
    if (!a || !b || a->sa_family != b->sa_family)
        return false;
    if (a->sa_family == AF_INET)
        return ((const struct sockaddr_in *)a)->sin_addr.s_addr ==
               ((const struct sockaddr_in *)b)->sin_addr.s_addr;
    if (a->sa_family == AF_INET6)
        return memcmp(&((const struct sockaddr_in6 *)a)->sin6_addr,
                      &((const struct sockaddr_in6 *)b)->sin6_addr, sizeof(struct in6_addr)) == 0;
    return false;
}

int vp_interface_of_address(const struct sockaddr *address, char *name, size_t len)
{
    struct ifaddrs *all;
    if (getifaddrs(&all) != 0)
        return -1;
    int found = -1;
    for (const struct ifaddrs *entry = all; entry && found != 0; entry = entry->ifa_next)
        if (same_address(entry->ifa_addr, address)) {
            snprintf(name, len, "%s", entry->ifa_name);
            found = 0;
        }
    freeifaddrs(all);
    return found;
}

int vp_route_interface(const char *host, char *name, size_t len)
{
    struct addrinfo hints = { .ai_socktype = SOCK_DGRAM }, *found;
    if (getaddrinfo(host, "9", &hints, &found) != 0)
        return -1;
    int status = -1;
    char ignored[64];
    if (vp_interface_of_address(found->ai_addr, ignored, sizeof ignored) == 0) {
        snprintf(name, len, "lo"); /* one of this host's own addresses */
        status = 0;
    } else {
        int fd = socket(found->ai_family, SOCK_DGRAM | SOCK_CLOEXEC, 0);
        struct sockaddr_storage source;
        socklen_t source_len = sizeof source;
        if (fd >= 0 && connect(fd, found->ai_addr, found->ai_addrlen) == 0 &&
            getsockname(fd, (struct sockaddr *)&source, &source_len) == 0)
            status = vp_interface_of_address((const struct sockaddr *)&source, name, len);
        if (fd >= 0)
            close(fd);
    }
    freeaddrinfo(found);
    return status;
}
