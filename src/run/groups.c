/* Each --group's words as the request its members start from (groups.h). */
#include "run/groups.h"

#include <stdio.h>
#include <string.h>

#include "core/side_name.h"

/* What a group may set of its own; the rest are the run's (one libvirt, one pinning of
 * this host's CPUs, one set of programs, one timeout). */
static const char *const group_settings[] = {
    "--guest-cpus", "--guest-memory", "--guest-accel", "--guest-cpu-cap", "--guest-net",
    "--guest-nic", "--guest-disk", "--guest-disk-size", "--guest-disk-bus",
    "--container-engine", "--container-runtime", "--container-net", NULL,
};
#define GROUP_SETTINGS_ACCEPTED \
    "guest-cpus, guest-memory, guest-accel, guest-cpu-cap, guest-net, guest-nic, " \
    "guest-disk, guest-disk-size, guest-disk-bus, container-engine, container-runtime " \
    "or container-net"

/* flag's entry in group_settings, NULL: a group does not take it. */
static const char *group_setting(const char *flag)
{
    for (size_t s = 0; group_settings[s]; s++)
        if (strcmp(group_settings[s], flag) == 0)
            return group_settings[s];
    return NULL;
}

/* A group's name: what its results' side is called, so neither a side a run has of its
 * own ("host") nor a kind's name; letters, digits, _ . - */
static int check_name(const char *name, const struct vp_member_group *earlier, size_t count,
                      char *err, size_t err_len)
{
    if (!vp_side_name_valid(name)) {
        snprintf(err, err_len, "--group: '%.40s' is not a group's name; accepted: NAME:KIND=N"
                 "[,SETTING=VALUE...], NAME 1 to %d letters, digits, _ . - (a letter or digit "
                 "first)", name, VP_SIDE_NAME_MOST);
        return -1;
    }
    if (strcmp(name, "host") == 0 || vp_env_kind_find(name)) {
        snprintf(err, err_len, "--group %s: a name results already use; accepted: another "
                 "name (not host, guests, containers or uml)", name);
        return -1;
    }
    for (size_t g = 0; g < count; g++)
        if (strcmp(earlier[g].name, name) == 0) {
            snprintf(err, err_len, "--group %s: given twice; accepted: a name per group", name);
            return -1;
        }
    return 0;
}

/* One SETTING=VALUE or KIND=N of group's words into its request; *setting: the flag a
 * SETTING=VALUE set (NULL for KIND=N). */
static int take_word(struct vp_member_group *group, struct vp_run_request *request,
                     char *word, const char **setting, char *err, size_t err_len)
{
    *setting = NULL;
    char *equals = strchr(word, '=');
    if (!equals || equals == word) {
        snprintf(err, err_len, "--group %s: '%.60s' is not SETTING=VALUE; accepted: KIND=N "
                 "(guests, containers or uml) and SETTING=VALUE", group->name, word);
        return -1;
    }
    *equals = '\0';
    const char *key = word, *value = equals + 1;
    const struct vp_env_kind *kind = vp_env_kind_find(key);
    char why[VP_TEXT_LEN];
    if (kind) {
        if (request->guests.kind) {
            snprintf(err, err_len, "--group %s: %s and %s; accepted: one kind per group",
                     group->name, request->guests.kind->name, key);
            return -1;
        }
        request->guests.kind = kind;
        char flag[32];
        snprintf(flag, sizeof flag, "--group %.16s %s", group->name, key);
        if (vp_run_flag_whole(flag, value, 1, VP_MAX_GUESTS, &group->count, err, err_len) != 0)
            return -1;
        return 0;
    }
    char flag[64];
    snprintf(flag, sizeof flag, "--%.60s", key);
    *setting = group_setting(flag);
    if (!*setting) {
        /* a run's own setting that goes with groups, or none at all */
        bool runs = vp_run_member_setting(key) && strcmp(key, "guest-pin") != 0 &&
                    strcmp(key, "libvirt-uri") != 0 && strcmp(key, "and-host") != 0 &&
                    strncmp(key, "migrate-", 8) != 0 &&
                    strcmp(key, "qos") != 0 && strcmp(key, "keep-free") != 0;
        snprintf(err, err_len, "--group %s: '%.60s' is not a setting of a group; accepted: "
                 GROUP_SETTINGS_ACCEPTED "%s%s%s", group->name, key,
                 runs ? " (it is the run's: " : "", runs ? flag : "", runs ? " VALUE)" : "");
        return -1;
    }
    if (vp_run_take(request, vp_run_flag_find(key), value, why, sizeof why) != 0) {
        snprintf(err, err_len, "--group %s: %s", group->name, why);
        return -1;
    }
    return 0;
}

/* Group g's words: its name, kind and count, its settings over the run's. */
static int take_group(const struct vp_guests_request *run, struct vp_member_group *groups,
                      size_t g, char *err, size_t err_len)
{
    struct vp_member_group *group = &groups[g];
    if (strlen(run->groups[g]) >= sizeof group->words) {
        snprintf(err, err_len, "--group: '%.40s...' is longer than %zu bytes; accepted: "
                 "NAME:KIND=N[,SETTING=VALUE...] shorter", run->groups[g],
                 sizeof group->words - 1);
        return -1;
    }
    snprintf(group->words, sizeof group->words, "%s", run->groups[g]);
    char *colon = strchr(group->words, ':');
    if (colon)
        *colon = '\0';
    if (check_name(group->words, groups, g, err, err_len) != 0)
        return -1;
    snprintf(group->name, sizeof group->name, "%.*s", VP_SIDE_NAME_MOST, group->words);
    struct vp_run_request request = { .guests = *run };
    request.guests.group_count = 0;
    /* the settings its own words gave, to check against its kind once it is known */
    const char *own[VP_TEXT_LEN / 2]; /* a word is at least "k=v," */
    size_t own_count = 0;
    char *save, *word;
    for (word = colon ? strtok_r(colon + 1, ",", &save) : NULL; word;
         word = strtok_r(NULL, ",", &save)) {
        const char *setting;
        if (take_word(group, &request, word, &setting, err, err_len) != 0)
            return -1;
        if (setting)
            own[own_count++] = setting;
    }
    if (!request.guests.kind) {
        snprintf(err, err_len, "--group %s: no kind; accepted: %s:guests=N, %s:containers=N or "
                 "%s:uml=N, then SETTING=VALUE...", group->name, group->name, group->name,
                 group->name);
        return -1;
    }
    for (size_t f = 0; f < own_count; f++)
        if (!vp_env_kind_takes(request.guests.kind, own[f])) {
            snprintf(err, err_len, "--group %s: %s is not a setting of %ss; accepted: one of "
                     "the settings of %ss", group->name, own[f] + 2,
                     request.guests.kind->noun, request.guests.kind->noun);
            return -1;
        }
    group->asked = request.guests;
    return 0;
}

int vp_member_groups_of(const struct vp_guests_request *run, struct vp_member_group *groups,
                        size_t *count, char *err, size_t err_len)
{
    *count = 0;
    if (run->group_count == 0)
        return 0;
    const char *fill = run->qos.given ? "--qos" : run->keep_free ? "--keep-free" : NULL;
    if (fill) {
        snprintf(err, err_len, "--group: not with %s (a group's count is fixed); accepted: "
                 "--group NAME:KIND=N twice or more, or a fill: --guests A..auto %s ...", fill,
                 fill);
        return -1;
    }
    const char *beside = run->kind ? run->kind->flag : run->and_host ? "--and-host"
                         : run->pin ? "--guest-pin" : run->uri ? "--libvirt-uri"
                         : run->migrate_to ? "--migrate-to" : NULL;
    if (beside) {
        snprintf(err, err_len, "--group: not with %s%s; accepted: --group NAME:KIND=N twice or "
                 "more, or %s alone", beside, run->kind ? " SPEC" : " yet",
                 run->kind ? "--guests SPEC, --containers SPEC or --uml SPEC" : beside);
        return -1;
    }
    if (run->group_count < 2) {
        snprintf(err, err_len, "--group: one group; accepted: 2 to %d (one group alone is "
                 "--guests N, --containers N or --uml N)", VP_MAX_GROUPS);
        return -1;
    }
    unsigned members = 0;
    for (size_t g = 0; g < run->group_count; g++) {
        if (take_group(run, groups, g, err, err_len) != 0)
            return -1;
        members += groups[g].count;
    }
    if (members > VP_MAX_GUESTS) {
        snprintf(err, err_len, "--group: %u members in all; accepted: at most %d", members,
                 VP_MAX_GUESTS);
        return -1;
    }
    /* each setting of the run's is some group's */
    const char *given[VP_RUN_MEMBER_SETTINGS];
    size_t settings = vp_run_members_given(run, given);
    for (size_t f = 0; f < settings; f++) {
        bool taken = false;
        for (size_t g = 0; g < run->group_count && !taken; g++)
            taken = vp_env_kind_takes(groups[g].asked.kind, given[f]);
        if (!taken) {
            snprintf(err, err_len, "%s: no group's kind takes it; accepted: it beside a group "
                     "of the members that do", given[f]);
            return -1;
        }
    }
    *count = run->group_count;
    return 0;
}
