/*
 * The floor under blockxfer's NIXL backend, for scripts/bench-nixl: the calls vLLM's Python
 * NixlTransport makes, made in C over libnixl_capi.so with nothing around them, or memcpy of the
 * same blocks. Two agents in this process (initiator and target), configured as the Python
 * original configures its agent (progress thread on with no delay, telemetry on, no listener,
 * no locking; UCX backend with num_threads=4); one transfer in flight at a time, each on distinct
 * blocks, with the indices of BaselineCase.java.
 *
 * usage: nixl_floor nixl|nixl-notify|memcpy SECONDS CASE...   (CASE: small, large); prints
 * "RESULT <case> <rate>", for nixl followed by get_xfer_status calls per transfer, the cores of this
 * process (warm-up included) and the share of both regions in transparent huge pages.
 * nixl-notify: every transfer carries a 16-byte notification (optional arguments made once with
 * has_notif set, the message set per transfer, as blockxfer's backend does), and the target takes
 * what arrived with get_notifs after each transfer (copying every message out of the map, then
 * clearing it); the run fails unless every transfer's notification arrived exactly once.
 * NIXL_FLOOR_THREAD_SYNC=0|1|2 (environment) sets the agents' thread_sync (NONE, the default and the
 * original's; STRICT; RW, what blockxfer's backend uses), to measure what NIXL's own locking costs.
 * NIXL_FLOOR_HUGE_PAGES=1 (environment) puts every region on 2 MiB boundaries advised to transparent
 * huge pages before first use, as blockxfer's backend and numpy allocate theirs; otherwise 4 KiB pages.
 *
 * The declarations below are this project's own, written for the C ABI of nixl-cu12 1.5.1 (its
 * wrapper.h is not shipped in the wheel): every handle is an opaque pointer and every function
 * returns a status, 0 for success and 1 for in progress.
 */
#define _DEFAULT_SOURCE
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

typedef struct {
    bool enable_prog_thread;
    bool enable_listen_thread;
    int listen_port;
    int thread_sync;          /* 0: no locking, as Python's default without a listener */
    unsigned int num_workers;
    uint64_t pthr_delay_us;
    uint64_t lthr_delay_us;
    bool capture_telemetry;
} agent_config;

enum { MEM_DRAM = 0, OP_WRITE = 1, OK = 0, IN_PROGRESS = 1 };

int nixl_capi_create_configured_agent(const char *name, const agent_config *cfg, void **agent);
int nixl_capi_destroy_agent(void *agent);
int nixl_capi_create_params(void **params);
int nixl_capi_params_add(void *params, const char *key, const char *value);
int nixl_capi_destroy_params(void *params);
int nixl_capi_create_backend(void *agent, const char *plugin, void *params, void **backend);
int nixl_capi_destroy_backend(void *backend);
int nixl_capi_create_reg_dlist(int mem_type, void **list);
int nixl_capi_reg_dlist_add_desc(void *list, uintptr_t addr, size_t len, uint64_t dev, const void *meta,
                                 size_t meta_len);
int nixl_capi_destroy_reg_dlist(void *list);
int nixl_capi_register_mem(void *agent, void *list, void *opt);
int nixl_capi_deregister_mem(void *agent, void *list, void *opt);
int nixl_capi_get_local_md(void *agent, void **data, size_t *len);
int nixl_capi_load_remote_md(void *agent, const void *data, size_t len, char **name);
int nixl_capi_invalidate_remote_md(void *agent, const char *name);
int nixl_capi_create_xfer_dlist(int mem_type, void **list);
int nixl_capi_xfer_dlist_add_desc(void *list, uintptr_t addr, size_t len, uint64_t dev);
int nixl_capi_destroy_xfer_dlist(void *list);
int nixl_capi_prep_xfer_dlist(void *agent, const char *agent_name, void *list, void **handle, void *opt);
int nixl_capi_release_xfer_dlist_handle(void *agent, void *handle);
int nixl_capi_make_xfer_req(void *agent, int op, void *local, const int *local_idx, size_t local_n, void *remote,
                            const int *remote_idx, size_t remote_n, void **req, void *opt);
int nixl_capi_post_xfer_req(void *agent, void *req, void *opt);
int nixl_capi_get_xfer_status(void *agent, void *req);
int nixl_capi_release_xfer_req(void *agent, void *req);
int nixl_capi_destroy_xfer_req(void *req);
int nixl_capi_create_opt_args(void **args);
int nixl_capi_destroy_opt_args(void *args);
int nixl_capi_opt_args_set_notif_msg(void *args, const void *data, size_t len);
int nixl_capi_opt_args_set_has_notif(void *args, bool has_notif);
int nixl_capi_create_notif_map(void **map);
int nixl_capi_destroy_notif_map(void *map);
int nixl_capi_get_notifs(void *agent, void *map, void *opt);
int nixl_capi_notif_map_size(void *map, size_t *size);
int nixl_capi_notif_map_get_agent_at(void *map, size_t index, const char **name);
int nixl_capi_notif_map_get_notifs_size(void *map, const char *name, size_t *size);
int nixl_capi_notif_map_get_notif(void *map, const char *name, size_t index, const void **data, size_t *len);
int nixl_capi_notif_map_clear(void *map);

static void check(int status, const char *what) {
    if (status != OK) {
        fprintf(stderr, "nixl_floor: %s failed with status %d\n", what, status);
        exit(1);
    }
}

static double now(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec + t.tv_nsec / 1e9;
}

typedef struct {
    const char *key;
    size_t block;
    int batch;
    int blocks;
} test_case;

static const test_case CASES[] = {{"small", 4096, 1, 4096}, {"large", 262144, 64, 256}};

typedef struct {
    void *agent;
    void *backend;
    void *reg;
    void *local;
    unsigned char *buf;
} side;

/* AnonHugePages of the mappings of this process that overlap [base, base + length). */
static size_t huge_page_bytes(const unsigned char *base, size_t length) {
    FILE *smaps = fopen("/proc/self/smaps", "r");
    if (smaps == NULL) {
        return 0;
    }
    uintptr_t from = (uintptr_t) base, to = from + length;
    size_t total = 0;
    bool overlaps = false;
    char line[512];
    while (fgets(line, sizeof line, smaps) != NULL) {
        unsigned long low, high, kb;
        char dash;
        if (sscanf(line, "%lx%c%lx ", &low, &dash, &high) == 3 && dash == '-') {
            overlaps = low < to && high > from;
        } else if (overlaps && sscanf(line, "AnonHugePages: %lu kB", &kb) == 1) {
            total += kb * 1024;
        }
    }
    fclose(smaps);
    return total < length ? total : length;
}

/* Region memory: 4 KiB pages, or transparent huge pages with NIXL_FLOOR_HUGE_PAGES=1. Freed with free(). */
static unsigned char *alloc_region(size_t bytes) {
    const char *huge = getenv("NIXL_FLOOR_HUGE_PAGES");
    if (huge != NULL && strcmp(huge, "1") == 0) {
        size_t page = (size_t) 2 << 20;
        size_t span = (bytes + page - 1) & ~(page - 1);
        unsigned char *p = aligned_alloc(page, span);
        if (p != NULL) {
            madvise(p, span, MADV_HUGEPAGE);
        }
        return p;
    }
    return aligned_alloc(4096, bytes);
}

static void open_side(side *s, const char *name, const test_case *c, int fill) {
    const char *sync = getenv("NIXL_FLOOR_THREAD_SYNC");
    agent_config cfg = {true, false, 0, sync != NULL ? atoi(sync) : 0, 1, 0, 100000, true};
    check(nixl_capi_create_configured_agent(name, &cfg, &s->agent), "create agent");
    void *params;
    check(nixl_capi_create_params(&params), "create params");
    check(nixl_capi_params_add(params, "num_threads", "4"), "params add");
    check(nixl_capi_create_backend(s->agent, "UCX", params, &s->backend), "create UCX backend");
    nixl_capi_destroy_params(params);
    size_t bytes = c->block * (size_t) c->blocks;
    s->buf = alloc_region(bytes);
    memset(s->buf, fill, bytes);
    check(nixl_capi_create_reg_dlist(MEM_DRAM, &s->reg), "create reg dlist");
    check(nixl_capi_reg_dlist_add_desc(s->reg, (uintptr_t) s->buf, bytes, 0, NULL, 0), "reg add desc");
    check(nixl_capi_register_mem(s->agent, s->reg, NULL), "register");
    void *descs;
    check(nixl_capi_create_xfer_dlist(MEM_DRAM, &descs), "create xfer dlist");
    for (int i = 0; i < c->blocks; i++) {
        check(nixl_capi_xfer_dlist_add_desc(descs, (uintptr_t) (s->buf + i * c->block), c->block, 0), "add desc");
    }
    check(nixl_capi_prep_xfer_dlist(s->agent, "", descs, &s->local, NULL), "prep local dlist");
    nixl_capi_destroy_xfer_dlist(descs);
}

static void close_side(side *s) {
    nixl_capi_release_xfer_dlist_handle(s->agent, s->local);
    nixl_capi_deregister_mem(s->agent, s->reg, NULL);
    nixl_capi_destroy_reg_dlist(s->reg);
    nixl_capi_destroy_backend(s->backend);
    nixl_capi_destroy_agent(s->agent);
    free(s->buf);
}

static void indices(const test_case *c, int slot, int *local, int *remote) {
    for (int i = 0; i < c->batch; i++) {
        local[i] = slot * c->batch + i;
        remote[i] = slot * c->batch + (c->batch == 1 ? 0 : (37 * i + 11) % c->batch);
    }
}

typedef struct {
    void *agent;
    void *local;
    void *remote;
    const int *local_idx;
    const int *remote_idx;
    int batch;
    int slots;
    long k;
    void *opt;          /* nixl-notify: optional arguments carrying the message, else NULL */
    void *target;       /* nixl-notify: the target agent, drained after each transfer */
    void *map;          /* nixl-notify: the target's notification map */
    long notified;      /* nixl-notify: notifications the target took */
} transfer_loop;

static const char MESSAGE[16] = "req-0000000000ok";

/* The target takes what arrived: every message copied out of the map, then the map cleared. */
static void drain_target(transfer_loop *x) {
    static char copy[2048];
    size_t agents, n, len;
    const char *name;
    const void *data;
    check(nixl_capi_get_notifs(x->target, x->map, NULL), "get notifs");
    check(nixl_capi_notif_map_size(x->map, &agents), "notif map size");
    for (size_t a = 0; a < agents; a++) {
        check(nixl_capi_notif_map_get_agent_at(x->map, a, &name), "notif map agent");
        check(nixl_capi_notif_map_get_notifs_size(x->map, name, &n), "notif map notifs size");
        for (size_t i = 0; i < n; i++) {
            check(nixl_capi_notif_map_get_notif(x->map, name, i, &data, &len), "notif map notif");
            memcpy(copy, data, len < sizeof copy ? len : sizeof copy);
            x->notified++;
        }
    }
    if (agents > 0) {
        check(nixl_capi_notif_map_clear(x->map), "notif map clear");
    }
}

/* One transfer, as the original's write_blocks and poll make it: make, post, status until done, release. */
static long checks;        /* get_xfer_status calls, warm-up included */
static double cores = -1;
static double huge_share = 0;
static long x_transfers = 1;  /* CPU of this process over the wall time, warm-up included */

static double cpu_now(void) {
    struct timespec t;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
    return t.tv_sec + t.tv_nsec / 1e9;
}

static void one_transfer(transfer_loop *x) {
    int s = (int) (x->k++ % x->slots);
    void *req;
    if (x->opt != NULL) {
        check(nixl_capi_opt_args_set_notif_msg(x->opt, MESSAGE, sizeof MESSAGE), "set notif msg");
    }
    check(nixl_capi_make_xfer_req(x->agent, OP_WRITE, x->local, x->local_idx + s * x->batch, x->batch, x->remote,
                                  x->remote_idx + s * x->batch, x->batch, &req, x->opt), "make xfer req");
    int status = nixl_capi_post_xfer_req(x->agent, req, NULL);
    while (status == IN_PROGRESS) {
        checks++;
        status = nixl_capi_get_xfer_status(x->agent, req);
    }
    check(status, "transfer");
    check(nixl_capi_release_xfer_req(x->agent, req), "release xfer req");
    check(nixl_capi_destroy_xfer_req(req), "destroy xfer req");
    if (x->opt != NULL) {
        drain_target(x);
    }
}

/* Transfers, one at a time, for about `seconds` after a warm-up; transfers per second. */
static double run_nixl(const test_case *c, double seconds, bool notify) {
    char name[64];
    side a;
    side b;
    snprintf(name, sizeof name, "c-init-%d-%s", (int) getpid(), c->key);
    open_side(&a, name, c, 1);
    snprintf(name, sizeof name, "c-target-%d-%s", (int) getpid(), c->key);
    open_side(&b, name, c, 2);
    void *md;
    size_t md_len;
    char *remote_name;
    check(nixl_capi_get_local_md(b.agent, &md, &md_len), "get local md");
    check(nixl_capi_load_remote_md(a.agent, md, md_len, &remote_name), "load remote md");
    free(md);
    void *descs;
    void *remote;
    check(nixl_capi_create_xfer_dlist(MEM_DRAM, &descs), "create remote dlist");
    for (int i = 0; i < c->blocks; i++) {
        check(nixl_capi_xfer_dlist_add_desc(descs, (uintptr_t) (b.buf + i * c->block), c->block, 0), "add desc");
    }
    check(nixl_capi_prep_xfer_dlist(a.agent, remote_name, descs, &remote, NULL), "prep remote dlist");
    nixl_capi_destroy_xfer_dlist(descs);

    int slots = c->blocks / c->batch;
    int *local_idx = malloc(sizeof(int) * c->blocks);
    int *remote_idx = malloc(sizeof(int) * c->blocks);
    for (int s = 0; s < slots; s++) {
        indices(c, s, local_idx + s * c->batch, remote_idx + s * c->batch);
    }
    transfer_loop x = {a.agent, a.local, remote, local_idx, remote_idx, c->batch, slots, 0, NULL, b.agent, NULL, 0};
    if (notify) {
        check(nixl_capi_create_opt_args(&x.opt), "create opt args");
        check(nixl_capi_opt_args_set_has_notif(x.opt, true), "set has notif");
        check(nixl_capi_create_notif_map(&x.map), "create notif map");
    }
    checks = 0;
    double cpu_start = cpu_now();
    double wall_start = now();
    double warm_end = now() + (seconds / 4 < 0.5 ? seconds / 4 : 0.5);
    while (now() < warm_end) {
        one_transfer(&x);
    }
    long n = 0;
    double start = now();
    double t;
    do {
        for (int j = 0; j < 16; j++) {
            one_transfer(&x);
        }
        n += 16;
        t = now();
    } while (t < start + seconds);
    double rate = n / (t - start);
    x_transfers = x.k;
    if (notify) {
        /* a message still on its way after the last transfer: wait for it, at most a second */
        for (double end = now() + 1; x.notified < x.k && now() < end;) {
            drain_target(&x);
        }
        if (x.notified != x.k) {
            fprintf(stderr, "nixl_floor: %ld notifications for %ld transfers\n", x.notified, x.k);
            exit(1);
        }
        nixl_capi_destroy_notif_map(x.map);
        nixl_capi_destroy_opt_args(x.opt);
    }
    cores = (cpu_now() - cpu_start) / (t - wall_start);
    size_t region = c->block * (size_t) c->blocks;
    huge_share = (double) (huge_page_bytes(a.buf, region) + huge_page_bytes(b.buf, region)) / (2.0 * region);
    nixl_capi_release_xfer_dlist_handle(a.agent, remote);
    nixl_capi_invalidate_remote_md(a.agent, remote_name);
    free(remote_name);
    free(local_idx);
    free(remote_idx);
    close_side(&a);
    close_side(&b);
    return rate;
}

/* memcpy of the same blocks, one block at a time, "transfer" after "transfer". */
static double run_memcpy(const test_case *c, double seconds) {
    size_t bytes = c->block * (size_t) c->blocks;
    unsigned char *src = alloc_region(bytes);
    unsigned char *dst = alloc_region(bytes);
    memset(src, 1, bytes);
    memset(dst, 2, bytes);
    int slots = c->blocks / c->batch;
    int *local = malloc(sizeof(int) * c->batch);
    int *remote = malloc(sizeof(int) * c->batch);
    double warm = seconds / 4 < 0.5 ? seconds / 4 : 0.5;
    long k = 0;
    for (double end = now() + warm; now() < end;) {
        indices(c, (int) (k++ % slots), local, remote);
        for (int i = 0; i < c->batch; i++) {
            memcpy(dst + remote[i] * c->block, src + local[i] * c->block, c->block);
        }
    }
    long n = 0;
    double start = now();
    double t;
    do {
        for (int j = 0; j < 16; j++) {
            indices(c, (int) (k++ % slots), local, remote);
            for (int i = 0; i < c->batch; i++) {
                memcpy(dst + remote[i] * c->block, src + local[i] * c->block, c->block);
            }
        }
        n += 16;
        t = now();
    } while (t < start + seconds);
    volatile unsigned char sink = dst[(size_t) (k % c->blocks) * c->block];
    (void) sink;
    free(src);
    free(dst);
    free(local);
    free(remote);
    return n / (t - start);
}

int main(int argc, char **argv) {
    bool notify = argc > 1 && strcmp(argv[1], "nixl-notify") == 0;
    if (argc < 4 || (strcmp(argv[1], "nixl") != 0 && !notify && strcmp(argv[1], "memcpy") != 0)) {
        fprintf(stderr, "usage: nixl_floor nixl|nixl-notify|memcpy SECONDS CASE...\n");
        return 2;
    }
    double seconds = atof(argv[2]);
    for (int i = 3; i < argc; i++) {
        const test_case *c = NULL;
        for (size_t j = 0; j < sizeof CASES / sizeof CASES[0]; j++) {
            if (strcmp(argv[i], CASES[j].key) == 0) {
                c = &CASES[j];
            }
        }
        if (c == NULL) {
            fprintf(stderr, "nixl_floor: unknown case %s\n", argv[i]);
            return 2;
        }
        double per_second = strcmp(argv[1], "memcpy") != 0 ? run_nixl(c, seconds, notify) : run_memcpy(c, seconds);
        double rate = strcmp(c->key, "small") == 0 ? per_second : per_second * c->batch * c->block / 1e9;
        if (cores >= 0) {
            printf("RESULT %s %.6g %.6g %.6g %.6g\n", c->key, rate, (double) checks / (double) x_transfers, cores,
                   huge_share);
        } else {
            printf("RESULT %s %.6g\n", c->key, rate);
        }
        fflush(stdout);
    }
    return 0;
}
