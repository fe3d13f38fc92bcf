/* CPU idle policy: what the machine has, and holding a 0 us latency request (idle.h). */
#include "core/idle.h"

#include <errno.h>
#include <fcntl.h>
#include <glob.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/procfs.h"

#define LATENCY_DEVICE "/dev/cpu_dma_latency"
#define NO_REQUEST_US 2000000000 /* what the device reads when nobody holds a request */

static int held_fd = -1;

/* The first line of a sysfs file, or "" when it cannot be read. */
static void read_value(const char *path, char *buf, size_t len)
{
    if (vp_read_text_file(path, buf, len) < 0)
        buf[0] = '\0';
    buf[strcspn(buf, "\n")] = '\0';
}

/* CPU 0's idle states (the driver gives every CPU the same ones). */
static json_t *idle_states(void)
{
    json_t *states = json_array();
    glob_t found;
    if (glob("/sys/devices/system/cpu/cpu0/cpuidle/state[0-9]*", 0, NULL, &found) != 0)
        return states;
    for (size_t i = 0; i < found.gl_pathc; i++) {
        char path[512], name[64], latency[32], disabled[16];
        snprintf(path, sizeof path, "%s/name", found.gl_pathv[i]);
        read_value(path, name, sizeof name);
        snprintf(path, sizeof path, "%s/latency", found.gl_pathv[i]);
        read_value(path, latency, sizeof latency);
        snprintf(path, sizeof path, "%s/disable", found.gl_pathv[i]);
        read_value(path, disabled, sizeof disabled);
        json_array_append_new(states, json_pack("{s:s,s:I,s:b}", "name", name, "latency_us",
                                                (json_int_t)atoll(latency), "disabled",
                                                atoi(disabled) != 0));
    }
    globfree(&found);
    return states;
}

json_t *vp_idle_policy(void)
{
    json_t *policy = json_object();
    char driver[64];
    read_value("/sys/devices/system/cpu/cpuidle/current_driver", driver, sizeof driver);
    if (driver[0])
        json_object_set_new(policy, "driver", json_string(driver));
    json_t *states = idle_states();
    if (json_array_size(states) > 0)
        json_object_set_new(policy, "states", states);
    else
        json_decref(states);
    /* Reading gives the request in force, the smallest of all held (opening it adds a
     * request at the default, which changes nothing). */
    int fd = open(LATENCY_DEVICE, O_RDONLY | O_CLOEXEC);
    int32_t request;
    if (fd >= 0 && read(fd, &request, sizeof request) == (ssize_t)sizeof request)
        json_object_set_new(policy, "latency_request_us", json_integer(request));
    if (fd >= 0)
        close(fd);
    return policy;
}

void vp_idle_describe(const json_t *idle, char *buf, size_t len)
{
    const json_t *driver = json_object_get(idle, "driver");
    const json_t *request = json_object_get(idle, "latency_request_us");
    char request_text[64] = "latency request unknown";
    if (json_integer_value(request) == NO_REQUEST_US)
        snprintf(request_text, sizeof request_text, "no latency request");
    else if (json_is_integer(request))
        snprintf(request_text, sizeof request_text, "latency request %lld us",
                 (long long)json_integer_value(request));
    snprintf(buf, len, "%s, %s%s", json_is_string(driver) ? json_string_value(driver) : "no cpuidle driver",
             request_text, json_is_true(json_object_get(idle, "held")) ? " (held by virtperf)" : "");
}

int vp_idle_hold_zero(char *err, size_t err_len)
{
    if (held_fd >= 0)
        return 0;
    int fd = open(LATENCY_DEVICE, O_RDWR | O_CLOEXEC);
    int32_t zero = 0;
    if (fd < 0 || write(fd, &zero, sizeof zero) != (ssize_t)sizeof zero) {
        snprintf(err, err_len, "--hold-latency: cannot hold a 0 us request at " LATENCY_DEVICE
                 ": %s (needs root and a kernel with PM QoS)", strerror(errno));
        if (fd >= 0)
            close(fd);
        return -1;
    }
    held_fd = fd;
    return 0;
}

void vp_idle_release(void)
{
    if (held_fd >= 0)
        close(held_fd);
    held_fd = -1;
}

int vp_idle_holding(void)
{
    return held_fd >= 0;
}
