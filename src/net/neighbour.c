/* Neighbour entries removed through rtnetlink (neighbour.h): RTM_DELNEIGH for one IPv4
 * address on one device, its acknowledgement read. */
#include "net/neighbour.h"

#include <arpa/inet.h>
#include <errno.h>
#include <linux/neighbour.h>
#include <linux/netlink.h>
#include <linux/rtnetlink.h>
#include <net/if.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

/* The kernel's answer to one request: 0, or the error it names. */
static int acknowledged(int fd)
{
    char answer[512];
    ssize_t got = recv(fd, answer, sizeof answer, 0);
    if (got < (ssize_t)(NLMSG_HDRLEN + sizeof(struct nlmsgerr)))
        return got < 0 ? errno : EPROTO;
    const struct nlmsghdr *header = (const struct nlmsghdr *)answer;
    if (header->nlmsg_type != NLMSG_ERROR)
        return EPROTO;
    const struct nlmsgerr *error = NLMSG_DATA(header);
    return -error->error;
}

int vp_neighbour_forget(const char *device, const char *address, char *err, size_t err_len)
{
    struct {
        struct nlmsghdr header;
        struct ndmsg neighbour;
        struct rtattr destination;
        struct in_addr ipv4;
    } request = {
        .header = { .nlmsg_len = sizeof request, .nlmsg_type = RTM_DELNEIGH,
                    .nlmsg_flags = NLM_F_REQUEST | NLM_F_ACK, .nlmsg_seq = 1 },
        .neighbour = { .ndm_family = AF_INET },
        .destination = { .rta_len = RTA_LENGTH(sizeof(struct in_addr)), .rta_type = NDA_DST },
    };
    request.neighbour.ndm_ifindex = (int)if_nametoindex(device);
    if (request.neighbour.ndm_ifindex == 0 || inet_pton(AF_INET, address, &request.ipv4) != 1) {
        snprintf(err, err_len, "cannot forget a neighbour entry: %s on %s is no IPv4 address on an interface here", address, device);
        return -1;
    }
    int fd = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_ROUTE);
    if (fd < 0) {
        snprintf(err, err_len, "cannot open rtnetlink: %s", strerror(errno));
        return -1;
    }
    struct sockaddr_nl kernel = { .nl_family = AF_NETLINK };
    int status = sendto(fd, &request, sizeof request, 0, (struct sockaddr *)&kernel,
                        sizeof kernel) == (ssize_t)sizeof request ? acknowledged(fd) : errno;
    close(fd);
    if (status != 0 && status != ENOENT) {
        snprintf(err, err_len, "cannot forget %s's neighbour entry for %s: %s", device, address,
                 strerror(status));
        return -1;
    }
    return 0;
}
