/* --migrate-to in a point of the fleet (fleet_run.h): the run's first member live-migrated
 * to another hypervisor while the point runs, and with --migrate-back back, by a thread of
 * its own, --migrate-at after the point's first measured start (and after its arrival;
 * at the point's end when that comes first).
 * Its channel is another once it arrived (the destination's QEMU makes its own): the
 * point's words to it wait at a gate while it moves, and one cut short by its old channel
 * closing is taken again over the new one. Each move is kept, with what the hypervisor
 * says of it, for the point's result, beside the longest gap net.probe saw meanwhile. */
#include "run/fleet_run.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "core/clock.h"

#define MIGRATION_WHY_LEN 1024 /* libvirt's reason and what the destination needs */
#define MOVE_ENDED 1
#define MOVE_ABORT 2 /* a Ctrl-C: the move under way is not waited for */

struct fleet_migration {
    struct fleet_run *run;
    const char *to;
    int64_t after_ns;     /* --migrate-at */
    bool back;
    int *slot;            /* the member's channel in the point's lead, NULL: not a rank */
    int64_t instant_ns;   /* the point's first measured start */
    pthread_t thread;
    atomic_int stop;      /* the point ended: no move begins after it */
    pthread_mutex_t lock;
    pthread_cond_t changed;
    bool moving, failed;
    char why[MIGRATION_WHY_LEN];
    json_t *moves;
    atomic_int watch;     /* the watchdog's word: 0 watching, MOVE_ENDED, MOVE_ABORT */
    int64_t deadline_ns;  /* when the watchdog aborts it: --guest-timeout after it began */
    bool timed_out;
    int old[2];           /* the member's channels before each move, closed at the end */
    size_t old_count;
    size_t read_from;     /* the oldest channel not seen to end (old_count: *slot) */
};

static void utc_now(json_t *move, const char *key)
{
    char instant[48];
    vp_utc_instant(vp_clock_ns(CLOCK_REALTIME), instant, sizeof instant);
    json_object_set_new(move, key, json_string(instant));
}

/* The member's new channel after it arrived. The old one stays open till the point ends:
 * the point's words may still be reading what the member sent there before it moved
 * (transport.h's gate takes them on over the new one once the old one closes). 0, or
 * -1 with why. */
static int take_new_channel(struct fleet_migration *migration, struct vp_member *member,
                            const struct vp_fleet_kind *kind)
{
    if (migration->old_count == sizeof migration->old / sizeof migration->old[0]) {
        snprintf(migration->why, sizeof migration->why, "too many moves in one point");
        return -1;
    }
    migration->old[migration->old_count++] = member->fd;
    member->fd = -1;
    if (kind->connect(kind->state, member, after_seconds(migration->run->timeout_s),
                      migration->why, sizeof migration->why) != 0)
        return -1;
    if (migration->slot)
        *migration->slot = member->fd;
    return 0;
}

/* A move's watchdog: it aborts the move still under way at its deadline. */
static void *watching(void *context)
{
    struct fleet_migration *migration = context;
    vp_sleep_until_ns_or_stop(migration->deadline_ns, &migration->watch);
    if (atomic_load(&migration->watch) != MOVE_ENDED) {
        migration->timed_out = atomic_load(&migration->watch) == 0;
        const struct vp_fleet_kind *kind = vp_fleet_kind_of(migration->run, 0);
        kind->abort_migration(kind->state, &migration->run->members[0]);
    }
    return NULL;
}

/* kind->migrate, aborted by the watchdog if it has not ended --guest-timeout after it
 * began; 0, or -1 with why (a timeout said first). */
static int migrate_watched(struct fleet_migration *migration, const char *uri, json_t *moved)
{
    struct fleet_run *run = migration->run;
    const struct vp_fleet_kind *kind = vp_fleet_kind_of(run, 0);
    pthread_t watchdog;
    atomic_store(&migration->watch, 0);
    migration->timed_out = false;
    migration->deadline_ns = after_seconds(run->timeout_s);
    if (pthread_create(&watchdog, NULL, watching, migration) != 0)
        abort();
    char why[MIGRATION_WHY_LEN];
    int status = kind->migrate(kind->state, &run->members[0], uri, moved, why, sizeof why);
    atomic_store(&migration->watch, MOVE_ENDED);
    vp_wake_sleepers(&migration->watch);
    pthread_join(watchdog, NULL);
    if (status != 0 && vp_engine_interrupted())
        snprintf(migration->why, sizeof migration->why, "interrupted by a signal: %.900s", why);
    else if (status != 0 && migration->timed_out)
        snprintf(migration->why, sizeof migration->why, "its migration did not end in %u s "
                 "(--guest-timeout) and was aborted: %.900s", run->timeout_s, why);
    else if (status != 0)
        snprintf(migration->why, sizeof migration->why, "%s", why);
    return status;
}

/* One move of the member to uri (NULL: back); false when it failed or was not begun. A
 * move there begins only while the point runs; the move back is made even when the point
 * ended first (at once then, marked after_point), so that a later point finds its guest
 * at home, where its own moves begin. */
static bool move(struct fleet_migration *migration, const char *uri, int64_t at_ns)
{
    struct fleet_run *run = migration->run;
    struct vp_member *member = &run->members[0];
    const struct vp_fleet_kind *kind = vp_fleet_kind_of(run, 0);
    vp_sleep_until_ns_or_stop(at_ns, &migration->stop);
    bool after_point = atomic_load(&migration->stop);
    if ((after_point && uri) || vp_engine_interrupted())
        return false;
    pthread_mutex_lock(&migration->lock);
    migration->moving = true;
    pthread_mutex_unlock(&migration->lock);
    const char *here = run->groups[0].asked->uri ? run->groups[0].asked->uri : "qemu:///system";
    json_t *moved = json_pack("{s:s,s:s,s:s}", "guest", member->name, "from",
                              uri ? here : migration->to, "to", uri ? uri : here);
    int64_t began = vp_now_ns();
    json_object_set_new(moved, "began_s", json_real((double)(began - migration->instant_ns) / 1e9));
    utc_now(moved, "began_utc");
    if (after_point)
        json_object_set_new(moved, "after_point", json_true());
    int status = migrate_watched(migration, uri, moved);
    utc_now(moved, "ended_utc");
    json_object_set_new(moved, "seconds", json_real((double)(vp_now_ns() - began) / 1e9));
    if (status == 0)
        status = take_new_channel(migration, member, kind);
    json_object_set_new(moved, "status", json_string(status == 0 ? "ok" : "failed"));
    if (status != 0)
        json_object_set_new(moved, "error", json_string(migration->why));
    json_array_append_new(migration->moves, moved);
    pthread_mutex_lock(&migration->lock);
    migration->moving = false;
    migration->failed = status != 0;
    pthread_cond_broadcast(&migration->changed);
    pthread_mutex_unlock(&migration->lock);
    return status == 0;
}

static void *migrating(void *context)
{
    struct fleet_migration *migration = context;
    if (move(migration, migration->to, migration->instant_ns + migration->after_ns) &&
        migration->back)
        move(migration, NULL, vp_now_ns() + migration->after_ns);
    return NULL;
}

void vp_fleet_migration_begin(struct fleet_run *run, const struct vp_guests_request *asked,
                              int64_t instant_ns, int *slot)
{
    if (!asked || !asked->migrate_to || run->migration || vp_fleet_kind_of(run, 0)->migrate == NULL)
        return;
    struct fleet_migration *migration = calloc(1, sizeof *migration);
    if (!migration)
        abort();
    *migration = (struct fleet_migration){
        .run = run, .to = asked->migrate_to, .back = asked->migrate_back, .slot = slot,
        .after_ns = (int64_t)((asked->migrate_at_s > 0 ? asked->migrate_at_s : 1.0) * 1e9),
        .instant_ns = instant_ns, .moves = json_array(),
    };
    pthread_mutex_init(&migration->lock, NULL);
    pthread_cond_init(&migration->changed, NULL);
    if (pthread_create(&migration->thread, NULL, migrating, migration) != 0)
        abort();
    run->migration = migration;
}

int vp_fleet_migration_gate(struct fleet_run *run, const int *slot, bool receive, int ended,
                            char *reason, size_t reason_len)
{
    struct fleet_migration *migration = run->migration;
    if (!migration || migration->slot != slot)
        return *slot;
    pthread_mutex_lock(&migration->lock);
    while (migration->moving && !vp_engine_interrupted()) {
        struct timespec tick;
        clock_gettime(CLOCK_REALTIME, &tick);
        tick.tv_nsec += 100000000; /* a Ctrl-C is seen within 0.1 s */
        if (tick.tv_nsec >= 1000000000) {
            tick.tv_sec++;
            tick.tv_nsec -= 1000000000;
        }
        pthread_cond_timedwait(&migration->changed, &migration->lock, &tick);
    }
    bool failed = migration->failed || migration->moving;
    if (migration->moving)
        snprintf(reason, reason_len, "interrupted by a signal");
    else if (failed)
        snprintf(reason, reason_len, "%s", migration->why);
    /* its channels in order: old[0..old_count), then *slot; each ends as its QEMU does */
    if (migration->read_from < migration->old_count &&
        migration->old[migration->read_from] == ended)
        migration->read_from++;
    int fd = receive && migration->read_from < migration->old_count
                 ? migration->old[migration->read_from] : *slot;
    pthread_mutex_unlock(&migration->lock);
    return failed ? -1 : fd;
}

json_t *vp_fleet_migration_end(struct fleet_run *run, char *why, size_t why_len)
{
    struct fleet_migration *migration = run->migration;
    why[0] = '\0';
    if (!migration)
        return NULL;
    atomic_store(&migration->stop, 1);
    vp_wake_sleepers(&migration->stop);
    int watching = 0;
    if (vp_engine_interrupted() && /* Ctrl-C: a move under way is not waited for */
        atomic_compare_exchange_strong(&migration->watch, &watching, MOVE_ABORT))
        vp_wake_sleepers(&migration->watch);
    pthread_join(migration->thread, NULL);
    if (migration->failed) /* said of a member not in the point's words */
        snprintf(why, why_len, "%s: %s", run->members[0].name, migration->why);
    json_t *moves = migration->moves;
    for (size_t i = 0; i < migration->old_count; i++)
        close(migration->old[i]);
    pthread_mutex_destroy(&migration->lock);
    pthread_cond_destroy(&migration->changed);
    free(migration);
    run->migration = NULL;
    return moves;
}

/* The longest round-trip gap of net.probe's timelines anywhere in node (a result, its
 * hosts' parts) that overlaps from..to; its length in *longest, its start in *start;
 * *covered: 1 when some timeline spans from..to whole, else 0 when there is one. */
static void longest_gap_within(const json_t *node, double from, double to, double *longest,
                               const char **start, int *covered, int depth)
{
    if (depth > 6)
        return;
    const char *key;
    size_t i;
    json_t *value;
    if (json_is_array(node))
        json_array_foreach(node, i, value)
            longest_gap_within(value, from, to, longest, start, covered, depth + 1);
    if (!json_is_object(node))
        return;
    const json_t *gaps = json_object_get(node, "gaps");
    double watched = vp_utc_seconds(json_string_value(json_object_get(node, "start_utc")));
    double step = json_number_value(json_object_get(node, "step_s"));
    size_t steps = json_array_size(json_object_get(node, "rtt_max_s"));
    if (json_is_array(gaps) && *covered < 1)
        *covered = watched >= 0 && watched <= from && watched + step * steps >= to;
    gaps = json_is_array(gaps) ? gaps : NULL;
    json_array_foreach(gaps, i, value) {
        const char *direction = json_string_value(json_object_get(value, "direction"));
        const char *began = json_string_value(json_object_get(value, "start_utc"));
        double length = json_number_value(json_object_get(value, "length_s"));
        double at = vp_utc_seconds(began);
        if (direction && strcmp(direction, "round_trip") == 0 && at >= 0 &&
            at <= to && at + length >= from && length > *longest) {
            *longest = length;
            *start = began;
        }
    }
    json_object_foreach((json_t *)node, key, value)
        if (strcmp(key, "gaps") != 0)
            longest_gap_within(value, from, to, longest, start, covered, depth + 1);
}

/* The slack after libvirt's migration returns in which the guest may still be silent
 * to a probe from outside (its new port learnt by the bridge, its first answer). */
#define SETTLING_S 1.0

void vp_fleet_migration_mark(json_t *result, json_t *moves)
{
    size_t i;
    json_t *moved;
    json_array_foreach(moves, i, moved) {
        double from = vp_utc_seconds(json_string_value(json_object_get(moved, "began_utc")));
        double to = vp_utc_seconds(json_string_value(json_object_get(moved, "ended_utc")));
        double longest = 0;
        const char *start = NULL;
        int covered = -1; /* no net.probe in the result */
        if (from >= 0 && to >= 0)
            longest_gap_within(result, from, to + SETTLING_S, &longest, &start, &covered, 0);
        if (covered >= 0)
            json_object_set_new(moved, "probe_covered", json_boolean(covered));
        if (!start || covered < 1)
            continue;
        json_object_set_new(moved, "probe_gap_s", json_real(longest));
        json_object_set_new(moved, "probe_gap_utc", json_string(start));
        const json_t *downtime = json_object_get(moved, "downtime_ms");
        if (json_is_number(downtime))
            json_object_set_new(moved, "gap_beyond_downtime_s",
                                json_real(longest - json_number_value(downtime) / 1e3));
    }
    json_object_set(result, "migrations", moves);
}
