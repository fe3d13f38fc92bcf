/* libFuzzer target: the guests' channel frames (env/channel.c) on arbitrary bytes, as a
 * guest gone wrong (or a hostile one) would send them to the host: the header decoder
 * never lets through a kind or a length it promised to refuse, and the whole stream read
 * frame by frame from a pipe never overruns or takes more than it holds. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/clock.h"
#include "env/channel.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char err[256];
    uint32_t kind, len;
    if (size >= VP_CHANNEL_HEADER &&
        vp_channel_header_parse(data, &kind, &len, err, sizeof err) == 0 &&
        (kind == 0 || kind >= VP_CHANNEL_KIND_COUNT || len > vp_channel_most(kind)))
        __builtin_trap();
    int pipe_fds[2];
    if (size > 60000 || pipe(pipe_fds) != 0)
        return 0;
    if (write(pipe_fds[1], data, size) != (ssize_t)size)
        __builtin_trap();
    close(pipe_fds[1]);
    size_t taken = 0;
    void *payload;
    size_t payload_len;
    while (vp_channel_receive(pipe_fds[0], &kind, &payload, &payload_len, vp_now_ns() + 1000000000LL,
                            err, sizeof err) == 0) {
        taken += VP_CHANNEL_HEADER + payload_len;
        if (taken > size || ((char *)payload)[payload_len] != '\0')
            __builtin_trap();
        free(payload);
    }
    close(pipe_fds[0]);
    return 0;
}
