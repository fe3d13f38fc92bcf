/* The workloads of `app --preset` (see app_workload.h): each generates its input from a
 * fixed seed, knows what a correct output is before the program runs, and checks it after:
 *   xz      compress 2 MiB of generated text, decompress it back and compare the hash;
 *   gcc     compile a generated C file of 120 functions at -O2, run the program and
 *           compare the number it prints with the one computed here;
 *   sqlite  load, index, aggregate, update and join 200,000 rows and make 3,000 small
 *           transactions in an on-disk database; compare every query's output;
 *   python  an interpreter loop (Collatz chains with a dict cache) and word counting;
 *           compare what it prints.
 * The reference times are one job's median wall time on the reference machine named in
 * docs/app-workloads.md (rerun bench/app_reference.sh to record a new one). */
#define _GNU_SOURCE
#include "bench/app_workload.h"

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "core/random.h"

/* --- helpers shared by the workloads ------------------------------------------------ */

static uint64_t fnv1a(uint64_t hash, const void *bytes, size_t len)
{
    const unsigned char *p = bytes;
    for (size_t i = 0; i < len; i++)
        hash = (hash ^ p[i]) * 0x100000001b3ULL;
    return hash;
}
#define FNV_START 0xcbf29ce484222325ULL

static int write_file(const char *dir, const char *name, const char *data, size_t len,
                      char *err, size_t err_len)
{
    char path[PATH_MAX];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    int fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
    size_t done = 0;
    while (fd >= 0 && done < len) {
        ssize_t wrote = write(fd, data + done, len - done);
        if (wrote <= 0)
            break;
        done += (size_t)wrote;
    }
    if (fd < 0 || done < len || close(fd) != 0) {
        snprintf(err, err_len, "app --preset: cannot write %s: %s", path, strerror(errno));
        if (fd >= 0)
            close(fd);
        return -1;
    }
    return 0;
}

/* A growing text buffer that aborts when memory runs out (inputs are a few MiB). */
struct text {
    char *data;
    size_t len, cap;
};

static void append(struct text *text, const char *format, ...)
    __attribute__((format(printf, 2, 3)));
static void append(struct text *text, const char *format, ...)
{
    for (;;) {
        va_list args;
        va_start(args, format);
        int n = vsnprintf(text->data + text->len, text->cap - text->len, format, args);
        va_end(args);
        if (n >= 0 && (size_t)n < text->cap - text->len) {
            text->len += (size_t)n;
            return;
        }
        text->cap = text->cap ? text->cap * 2 : 65536;
        text->data = realloc(text->data, text->cap);
        if (!text->data)
            abort();
    }
}

/* Runs argv (no stdin), returning its exit status (-1: it did not run or was killed);
 * hashes all of its stdout into *hash and *len and keeps its start in head. */
static int run_reading(char *const argv[], uint64_t *hash, uint64_t *len, char *head,
                       size_t head_len)
{
    int out[2];
    if (pipe2(out, O_CLOEXEC) != 0)
        return -1;
    pid_t child = fork();
    if (child == 0) {
        dup2(out[1], STDOUT_FILENO);
        int null = open("/dev/null", O_RDWR);
        if (null >= 0) {
            dup2(null, STDIN_FILENO);
            dup2(null, STDERR_FILENO);
        }
        execv(argv[0], argv);
        _exit(127);
    }
    close(out[1]);
    *hash = FNV_START;
    *len = 0;
    head[0] = '\0';
    char buffer[65536];
    ssize_t got;
    while (child > 0 && ((got = read(out[0], buffer, sizeof buffer)) > 0 || (got < 0 && errno == EINTR))) {
        if (got < 0)
            continue;
        if (*len < head_len - 1) {
            size_t room = head_len - 1 - (size_t)*len;
            size_t copy = (size_t)got < room ? (size_t)got : room;
            memcpy(head + *len, buffer, copy);
            head[*len + copy] = '\0';
        }
        *hash = fnv1a(*hash, buffer, (size_t)got);
        *len += (uint64_t)got;
    }
    close(out[0]);
    int status;
    if (child < 0 || waitpid(child, &status, 0) != child || !WIFEXITED(status))
        return -1;
    return WEXITSTATUS(status);
}

/* Splits a command into words; every word is a separate string in storage. */
static void set_words(struct vp_workload_command *command, const char *const *words)
{
    size_t used = 0, n = 0;
    for (; words[n] && n + 1 < VP_WORKLOAD_MAX_WORDS; n++) {
        size_t len = strlen(words[n]) + 1;
        if (used + len > sizeof command->storage)
            abort(); /* paths are bounded by PATH_MAX: cannot happen */
        memcpy(command->storage + used, words[n], len);
        command->words[n] = command->storage + used;
        used += len;
    }
    command->words[n] = NULL;
}

static int compare_output(const char *name, const char *output, const char *expected, char *err,
                          size_t err_len)
{
    if (strcmp(output, expected) == 0)
        return 0;
    size_t at = 0;
    while (output[at] && output[at] == expected[at])
        at++;
    snprintf(err, err_len, "app --preset %s: wrong output from byte %zu: got '%.40s', want "
             "'%.40s'", name, at, output + at, expected + at);
    return -1;
}

/* --- xz: compression of generated text ---------------------------------------------- */

#define XZ_INPUT_BYTES (2u << 20)
static uint64_t xz_input_hash;

static int xz_generate(const char *dir, char *err, size_t err_len)
{
    enum { WORDS = 4096 };
    static char vocabulary[WORDS][12];
    uint64_t state = 0x78ab5eedULL;
    for (size_t w = 0; w < WORDS; w++) {
        size_t len = 2 + vp_xorshift64(&state) % 9;
        for (size_t i = 0; i < len; i++)
            vocabulary[w][i] = (char)('a' + vp_xorshift64(&state) % 26);
        vocabulary[w][len] = '\0';
    }
    char *input = malloc(XZ_INPUT_BYTES);
    if (!input)
        abort();
    size_t len = 0, on_line = 0;
    while (len < XZ_INPUT_BYTES) {
        /* a skewed choice, as words in text are: low indexes far more often */
        uint64_t r = vp_xorshift64(&state);
        size_t w = (size_t)((r & 0xfff) * ((r >> 12) & 0xfff) >> 12);
        const char *word = vocabulary[w];
        for (size_t i = 0; word[i] && len < XZ_INPUT_BYTES; i++)
            input[len++] = word[i];
        if (len < XZ_INPUT_BYTES)
            input[len++] = ++on_line % 12 == 0 ? '\n' : ' ';
    }
    xz_input_hash = fnv1a(FNV_START, input, len);
    int status = write_file(dir, "input.txt", input, len, err, err_len);
    free(input);
    return status;
}

static void xz_command(const char *dir, const char *job_dir, struct vp_workload_command *command)
{
    const char *words[] = { "/usr/bin/xz", "-T1", "-6", "-c", NULL };
    set_words(command, words);
    snprintf(command->stdin_path, sizeof command->stdin_path, "%s/input.txt", dir);
    snprintf(command->stdout_path, sizeof command->stdout_path, "%s/out.xz", job_dir);
}

static int xz_check(const char *dir, const char *job_dir, const char *output, char *err,
                    size_t err_len)
{
    (void)dir;
    (void)output;
    char compressed[PATH_MAX + 16], head[16];
    snprintf(compressed, sizeof compressed, "%s/out.xz", job_dir);
    char *argv[] = { "/usr/bin/xz", "-dc", compressed, NULL };
    uint64_t hash, len;
    int status = run_reading(argv, &hash, &len, head, sizeof head);
    if (status != 0 || len != XZ_INPUT_BYTES || hash != xz_input_hash) {
        snprintf(err, err_len, "app --preset xz: the output does not decompress to the input "
                 "(xz -dc exit %d, %llu of %u bytes, %s hash)", status, (unsigned long long)len,
                 XZ_INPUT_BYTES, hash == xz_input_hash ? "same" : "another");
        return -1;
    }
    return 0;
}

/* --- gcc: compilation of a generated C file, then the program's own answer ------------ */

#define GCC_FUNCTIONS 120
struct gcc_function {
    uint32_t a, b, c, d, e, iterations, shift1, shift2;
};
static struct gcc_function gcc_functions[GCC_FUNCTIONS];
static char gcc_expected[32];

/* What f(x) returns: the generated C function, computed here the same way. */
static uint32_t gcc_evaluate(const struct gcc_function *f, uint32_t x)
{
    uint32_t t[16];
    for (uint32_t i = 0; i < 16; i++)
        t[i] = x * f->a + i * f->b;
    for (uint32_t i = 0; i < f->iterations; i++) {
        switch ((x ^ i) & 7) {
        case 0: x = x * f->c + f->d; break;
        case 1: x ^= x >> f->shift1; break;
        case 2: x += (x << f->shift2) ^ f->e; break;
        case 3: x = (x >> 1) | (x << 31); break;
        case 4: x -= t[i & 15]; break;
        case 5: t[(x >> 3) & 15] ^= x; break;
        case 6: x = x * t[(i + 3) & 15] + 1u; break;
        default: x ^= t[x & 15] + f->e; break;
        }
    }
    return x ^ t[x & 15];
}

static int gcc_generate(const char *dir, char *err, size_t err_len)
{
    uint64_t state = 0x9cc5eedULL;
    struct text source = { 0 };
    append(&source, "/* generated by virtperf app --preset gcc */\n"
                    "int printf(const char *, ...);\n");
    uint32_t chained = 1;
    for (unsigned n = 0; n < GCC_FUNCTIONS; n++) {
        struct gcc_function *f = &gcc_functions[n];
        f->a = (uint32_t)vp_xorshift64(&state) | 1;
        f->b = (uint32_t)vp_xorshift64(&state);
        f->c = (uint32_t)vp_xorshift64(&state) | 1;
        f->d = (uint32_t)vp_xorshift64(&state);
        f->e = (uint32_t)vp_xorshift64(&state);
        f->iterations = 20 + (uint32_t)(vp_xorshift64(&state) % 40);
        f->shift1 = 1 + (uint32_t)(vp_xorshift64(&state) % 31);
        f->shift2 = 1 + (uint32_t)(vp_xorshift64(&state) % 31);
        append(&source,
               "static unsigned f%u(unsigned x)\n{\n"
               "    unsigned t[16];\n"
               "    for (unsigned i = 0; i < 16; i++)\n"
               "        t[i] = x * %uu + i * %uu;\n"
               "    for (unsigned i = 0; i < %uu; i++) {\n"
               "        switch ((x ^ i) & 7) {\n"
               "        case 0: x = x * %uu + %uu; break;\n"
               "        case 1: x ^= x >> %u; break;\n"
               "        case 2: x += (x << %u) ^ %uu; break;\n"
               "        case 3: x = (x >> 1) | (x << 31); break;\n"
               "        case 4: x -= t[i & 15]; break;\n"
               "        case 5: t[(x >> 3) & 15] ^= x; break;\n"
               "        case 6: x = x * t[(i + 3) & 15] + 1u; break;\n"
               "        default: x ^= t[x & 15] + %uu; break;\n"
               "        }\n    }\n    return x ^ t[x & 15];\n}\n",
               n, f->a, f->b, f->iterations, f->c, f->d, f->shift1, f->shift2, f->e, f->e);
        chained = gcc_evaluate(f, chained ^ n);
    }
    append(&source, "int main(void)\n{\n    unsigned s = 1;\n");
    for (unsigned n = 0; n < GCC_FUNCTIONS; n++)
        append(&source, "    s = f%u(s ^ %uu);\n", n, n);
    append(&source, "    printf(\"%%u\\n\", s);\n    return 0;\n}\n");
    snprintf(gcc_expected, sizeof gcc_expected, "%u\n", chained);
    int status = write_file(dir, "gen.c", source.data, source.len, err, err_len);
    free(source.data);
    return status;
}

static void gcc_command(const char *dir, const char *job_dir, struct vp_workload_command *command)
{
    char source[PATH_MAX + 8], program[PATH_MAX + 8];
    snprintf(source, sizeof source, "%s/gen.c", dir);
    snprintf(program, sizeof program, "%s/gen", job_dir);
    const char *words[] = { "/usr/bin/gcc", "-O2", "-w", "-o", program, source, NULL };
    set_words(command, words);
    command->stdin_path[0] = command->stdout_path[0] = '\0';
}

static int gcc_check(const char *dir, const char *job_dir, const char *output, char *err,
                     size_t err_len)
{
    (void)dir;
    (void)output;
    char program[PATH_MAX + 8], printed[64];
    snprintf(program, sizeof program, "%s/gen", job_dir);
    char *argv[] = { program, NULL };
    uint64_t hash, len;
    if (run_reading(argv, &hash, &len, printed, sizeof printed) != 0) {
        snprintf(err, err_len, "app --preset gcc: the compiled program did not run");
        return -1;
    }
    return compare_output("gcc", printed, gcc_expected, err, err_len);
}

/* --- sqlite: an on-disk database loaded, indexed, queried, updated ------------------- */

#define SQL_ROWS 200000u
#define SQL_MODULUS 100003u
#define SQL_GROUPS 97u
#define SQL_JOINED 50000u
#define SQL_SMALL_TRANSACTIONS 3000u
static char sqlite_expected[512];

static uint64_t sql_key(uint64_t id) { return id * 7919 % SQL_MODULUS; }

/* The expected output of the script, computed here row by row. */
static void sqlite_expect(void)
{
    uint64_t *k = calloc(SQL_ROWS + 1, sizeof *k);
    if (!k)
        abort();
    uint64_t in_range = 0, range_sum = 0, group_sum[SQL_GROUPS] = { 0 }, group_count[SQL_GROUPS] = { 0 };
    for (uint64_t id = 1; id <= SQL_ROWS; id++) {
        k[id] = sql_key(id);
        if (k[id] >= 20000 && k[id] <= 40000) {
            in_range++;
            range_sum += k[id];
        }
        group_sum[id % SQL_GROUPS] += k[id];
        group_count[id % SQL_GROUPS]++;
    }
    struct text out = { 0 };
    append(&out, "%llu|%llu\n", (unsigned long long)in_range, (unsigned long long)range_sum);
    /* the three groups with the largest sums; ties by name, as ORDER BY s DESC, g says */
    bool taken[SQL_GROUPS] = { false };
    for (int rank = 0; rank < 3; rank++) {
        int best = -1;
        char best_name[16] = "", name[16];
        for (unsigned g = 0; g < SQL_GROUPS; g++) {
            snprintf(name, sizeof name, "g%u", g);
            if (taken[g])
                continue;
            if (best < 0 || group_sum[g] > group_sum[best] ||
                (group_sum[g] == group_sum[best] && strcmp(name, best_name) < 0)) {
                best = (int)g;
                strcpy(best_name, name);
            }
        }
        taken[best] = true;
        append(&out, "%s|%llu|%llu\n", best_name, (unsigned long long)group_count[best],
               (unsigned long long)group_sum[best]);
    }
    uint64_t total = 0, largest = 0, joined = 0;
    for (uint64_t id = 1; id <= SQL_ROWS; id++) {
        if (id % 5 == 0)
            k[id] = k[id] * 3 % SQL_MODULUS;
        total += k[id];
        largest = k[id] > largest ? k[id] : largest;
    }
    for (uint64_t id = 1; id <= SQL_JOINED; id++)
        joined += k[id] >= 1 && k[id] <= SQL_ROWS;
    append(&out, "%llu|%llu\n%llu\n", (unsigned long long)total, (unsigned long long)largest,
           (unsigned long long)joined);
    uint64_t log_bytes = 0;
    for (unsigned i = 1; i <= SQL_SMALL_TRANSACTIONS; i++) {
        char message[64];
        log_bytes += (uint64_t)snprintf(message, sizeof message, "event %u of the log", i * 37);
    }
    append(&out, "%u|%llu\n", SQL_SMALL_TRANSACTIONS, (unsigned long long)log_bytes);
    snprintf(sqlite_expected, sizeof sqlite_expected, "%s", out.data);
    free(out.data);
    free(k);
}

static int sqlite_generate(const char *dir, char *err, size_t err_len)
{
    struct text script = { 0 };
    append(&script,
           "PRAGMA synchronous = OFF;\n"
           "CREATE TABLE t(id INTEGER PRIMARY KEY, k INTEGER NOT NULL, g TEXT NOT NULL);\n"
           "WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c WHERE x < %u)\n"
           "  INSERT INTO t SELECT x, x * 7919 %% %u, 'g' || (x %% %u) FROM c;\n"
           "CREATE INDEX t_k ON t(k);\n"
           "SELECT count(*), sum(k) FROM t WHERE k BETWEEN 20000 AND 40000;\n"
           "SELECT g, count(*), sum(k) AS s FROM t GROUP BY g ORDER BY s DESC, g LIMIT 3;\n"
           "UPDATE t SET k = k * 3 %% %u WHERE id %% 5 = 0;\n"
           "SELECT sum(k), max(k) FROM t;\n"
           "SELECT count(*) FROM t AS a JOIN t AS b ON b.id = a.k WHERE a.id <= %u;\n"
           "CREATE TABLE log(id INTEGER PRIMARY KEY, message TEXT);\n",
           SQL_ROWS, SQL_MODULUS, SQL_GROUPS, SQL_MODULUS, SQL_JOINED);
    for (unsigned i = 1; i <= SQL_SMALL_TRANSACTIONS; i++) /* each its own transaction */
        append(&script, "INSERT INTO log(message) VALUES ('event %u of the log');\n", i * 37);
    append(&script, "SELECT count(*), sum(length(message)) FROM log;\n");
    sqlite_expect();
    int status = write_file(dir, "load.sql", script.data, script.len, err, err_len);
    free(script.data);
    return status;
}

static void sqlite_command(const char *dir, const char *job_dir, struct vp_workload_command *command)
{
    char database[PATH_MAX + 16];
    snprintf(database, sizeof database, "%s/bench.db", job_dir);
    const char *words[] = { "/usr/bin/sqlite3", "-bail", "-batch", database, NULL };
    set_words(command, words);
    snprintf(command->stdin_path, sizeof command->stdin_path, "%s/load.sql", dir);
    command->stdout_path[0] = '\0';
}

static int sqlite_check(const char *dir, const char *job_dir, const char *output, char *err,
                        size_t err_len)
{
    (void)dir;
    (void)job_dir;
    return compare_output("sqlite", output, sqlite_expected, err, err_len);
}

/* --- python: an interpreter loop and a dictionary ------------------------------------ */

#define PY_COLLATZ_LIMIT 300000u
#define PY_WORDS 600000u
#define PY_VOCABULARY 5003u
static char python_expected[256];

static void python_expect(void)
{
    uint32_t *length = calloc(PY_COLLATZ_LIMIT, sizeof *length);
    if (!length)
        abort();
    length[1] = 1;
    uint32_t best = 1, argument = 1;
    for (uint64_t n = 2; n < PY_COLLATZ_LIMIT; n++) {
        uint64_t m = n, steps = 0;
        while (m >= PY_COLLATZ_LIMIT || length[m] == 0) {
            m = m % 2 == 0 ? m / 2 : 3 * m + 1;
            steps++;
        }
        length[n] = length[m] + (uint32_t)steps;
        if (length[n] > best) {
            best = length[n];
            argument = (uint32_t)n;
        }
    }
    free(length);
    static uint32_t count[PY_VOCABULARY];
    memset(count, 0, sizeof count);
    for (uint64_t i = 0; i < PY_WORDS; i++)
        count[i * 2654435761ULL % PY_VOCABULARY]++;
    unsigned distinct = 0;
    for (unsigned w = 0; w < PY_VOCABULARY; w++)
        distinct += count[w] > 0;
    struct text out = { 0 };
    append(&out, "collatz %u %u\nwords %u ", best, argument, distinct);
    bool taken[PY_VOCABULARY] = { false };
    for (int rank = 0; rank < 3; rank++) {
        int pick = -1;
        char pick_name[16] = "", name[16];
        for (unsigned w = 0; w < PY_VOCABULARY; w++) {
            if (taken[w] || count[w] == 0)
                continue;
            snprintf(name, sizeof name, "w%u", w);
            if (pick < 0 || count[w] > count[pick] ||
                (count[w] == count[pick] && strcmp(name, pick_name) < 0)) {
                pick = (int)w;
                strcpy(pick_name, name);
            }
        }
        taken[pick] = true;
        append(&out, "%s%s:%u", rank ? "," : "", pick_name, count[pick]);
    }
    append(&out, "\n");
    snprintf(python_expected, sizeof python_expected, "%s", out.data);
    free(out.data);
}

static int python_generate(const char *dir, char *err, size_t err_len)
{
    struct text script = { 0 };
    append(&script,
           "# generated by virtperf app --preset python\n"
           "def collatz(limit):\n"
           "    cache = {1: 1}\n"
           "    best, argument = 1, 1\n"
           "    for n in range(2, limit):\n"
           "        m, path = n, []\n"
           "        while m not in cache:\n"
           "            path.append(m)\n"
           "            m = m // 2 if m %% 2 == 0 else 3 * m + 1\n"
           "        length = cache[m]\n"
           "        for p in reversed(path):\n"
           "            length += 1\n"
           "            cache[p] = length\n"
           "        if length > best:\n"
           "            best, argument = length, n\n"
           "    return best, argument\n"
           "\n"
           "counts = {}\n"
           "for i in range(%u):\n"
           "    word = 'w%%d' %% (i * 2654435761 %% %u)\n"
           "    counts[word] = counts.get(word, 0) + 1\n"
           "top = sorted(counts.items(), key=lambda kv: (-kv[1], kv[0]))[:3]\n"
           "print('collatz %%d %%d' %% collatz(%u))\n"
           "print('words %%d %%s' %% (len(counts), ','.join('%%s:%%d' %% kv for kv in top)))\n",
           PY_WORDS, PY_VOCABULARY, PY_COLLATZ_LIMIT);
    python_expect();
    int status = write_file(dir, "bench.py", script.data, script.len, err, err_len);
    free(script.data);
    return status;
}

static void python_command(const char *dir, const char *job_dir, struct vp_workload_command *command)
{
    (void)job_dir;
    char script[PATH_MAX + 16];
    snprintf(script, sizeof script, "%s/bench.py", dir);
    const char *words[] = { "/usr/bin/python3", "-I", "-S", script, NULL };
    set_words(command, words);
    command->stdin_path[0] = command->stdout_path[0] = '\0';
}

static int python_check(const char *dir, const char *job_dir, const char *output, char *err,
                        size_t err_len)
{
    (void)dir;
    (void)job_dir;
    return compare_output("python", output, python_expected, err, err_len);
}

/* --- the table ------------------------------------------------------------------------ *
 * reference_seconds: bench/app_reference.sh on the reference machine of
 * docs/app-workloads.md (2-vCPU AMD EPYC KVM guest, Debian 12: xz 5.4.1, gcc 12.2.0,
 * sqlite 3.40.1, Python 3.11.2), the median of 9 repetitions, one job pinned to CPU 0. */

/* gcc's driver runs cc1, as and ld, which read its start files and libc's link script;
 * the generated source includes no header. */
static const char *const gcc_files[] = {
    "/usr/bin/as", "/usr/bin/ld", "/usr/lib/gcc/*-linux-gnu/*/cc1",
    "/usr/lib/gcc/*-linux-gnu/*/collect2", "/usr/lib/gcc/*-linux-gnu/*/lto-wrapper",
    "/usr/lib/gcc/*-linux-gnu/*/liblto_plugin.so", "/usr/lib/gcc/*-linux-gnu/*/crtbeginS.o",
    "/usr/lib/gcc/*-linux-gnu/*/crtendS.o", "/usr/lib/gcc/*-linux-gnu/*/libgcc.a",
    "/usr/lib/gcc/*-linux-gnu/*/libgcc_s.so", "/usr/lib/*-linux-gnu/Scrt1.o",
    "/usr/lib/*-linux-gnu/crti.o", "/usr/lib/*-linux-gnu/crtn.o", "/usr/lib/*-linux-gnu/libc.so",
    "/usr/lib/*-linux-gnu/libc_nonshared.a", "/usr/lib/*-linux-gnu/libgcc_s.so.1",
    "/usr/include/stdc-predef.h", NULL,
};
/* the interpreter's standard library, whole: a script of the user's may import any of it */
static const char *const python_files[] = { "/usr/lib/python3.[0-9]*", NULL };

const struct vp_workload vp_workloads[] = {
    { "xz", "/usr/bin/xz", "xz-utils", NULL, "LZMA match finding: integer, branchy, cache "
      "misses over its dictionary", 1.220, xz_generate, xz_command, xz_check },
    { "gcc", "/usr/bin/gcc", "gcc", gcc_files, "branchy integer code over many small objects, "
      "process starts (cc1, as, ld)", 1.285, gcc_generate, gcc_command, gcc_check },
    { "sqlite", "/usr/bin/sqlite3", "sqlite3", NULL, "B-tree pages in memory, then many small "
      "transactions: system calls and file creation", 0.725, sqlite_generate, sqlite_command,
      sqlite_check },
    { "python", "/usr/bin/python3", "python3", python_files, "an interpreter loop: branchy, "
      "dictionary and allocator heavy", 0.624, python_generate, python_command, python_check },
};
const size_t vp_workload_count = sizeof vp_workloads / sizeof vp_workloads[0];

const struct vp_workload *vp_workload_find(const char *name)
{
    for (size_t i = 0; i < vp_workload_count; i++)
        if (strcmp(vp_workloads[i].name, name) == 0)
            return &vp_workloads[i];
    return NULL;
}
