/* C reference of lotr_sim.kernels.combat.battles_nb, for `lotr-sim bench kernels`.
 *
 * Plays battles first .. first+n-1 of run `seed` with exactly the draws of the numba
 * kernels (lotr_sim/kernels/rng.py): battle i seeds its own xoshiro256** stream from
 * splitmix64 at key = mix64(mix64(seed ^ SEED_SALT) ^ i); every assault roll is one
 * exact uniform draw on [0, 6**5) (Lemire's multiply-shift with rejection) whose five
 * base-6 digits are the dice (a1, a2, a3, d1, d2); all three rule sets of battle_nb.
 *
 * Written as a C programmer would: the stream state lives in local variables, one loop
 * per rule set (the rule set a compile-time constant), the results go to freshly
 * allocated arrays like simulate_battles' numpy arrays. One thread. The whole set of n battles is repeated until it takes min_seconds; the
 * results of the last repetition give the checksum (battle_checksum in lotr_sim/bench.py):
 *   sum over i of (outcome | a << 8 | d << 24 | rolls << 40) * (2 * (first + i) + 1)  mod 2**64.
 *
 * Usage: battle_ref SEED FIRST N ATTACKERS DEFENDERS RULES STOP_AT A_BONUS D_BONUS
 *                   GOOD_ATTACKS WITCH_KING MIN_SECONDS
 * Prints one JSON object. Build: cc -O3 -march=native -o battle_ref battle_ref.c
 */
#define _POSIX_C_SOURCE 199309L
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#define GOLDEN 0x9E3779B97F4A7C15ULL
#define SEED_SALT 0x6C6F74722D73696DULL /* "lotr-sim" */

enum { ATTACKER_WON, DEFENDER_HELD, ATTACKER_RETREATED, DEFENDER_RETREATED };

static inline uint64_t mix64(uint64_t z) {
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
    return z ^ (z >> 31);
}

static inline uint64_t rotl(uint64_t x, int k) { return (x << k) | (x >> (64 - k)); }

typedef struct {
    int attackers, defenders, rules, stop_at, a_bonus, d_bonus, good_attacks, witch_king;
} params;

typedef struct {
    int outcome, a, d, rolls;
} result;

static inline int imax(int x, int y) { return x > y ? x : y; }
static inline int imin(int x, int y) { return x < y ? x : y; }

/* Always inlined with a constant `rules`, so each rule set gets its own loop. */
static inline __attribute__((always_inline)) result battle(uint64_t base_key, uint64_t index,
                                                           const params *p, const int rules) {
    uint64_t key = mix64(base_key ^ index);
    uint64_t s0 = mix64(key += GOLDEN);
    uint64_t s1 = mix64(key += GOLDEN);
    uint64_t s2 = mix64(key += GOLDEN);
    uint64_t s3 = mix64(key += GOLDEN);
    const uint64_t threshold = (0x100000000ULL - 7776ULL) % 7776ULL; /* 2**32 mod 7776 */
    const int home = rules == 2 ? 0 : 1;
    const int floor_ = p->stop_at < home ? home : p->stop_at;
    int a = p->attackers, d = p->defenders, rolls = 0;
    result r;
    while (a > floor_ && d > 0) {
        int ad = imin(a - home, 3);
        int dd = d >= 2 ? 2 : 1;
        if (rules == 1 && dd > ad) dd = ad;
        uint64_t v;
        for (;;) { /* one xoshiro256** draw, then Lemire's rejection for [0, 7776) */
            uint64_t x = rotl(s1 * 5, 7) * 9;
            uint64_t t = s1 << 17;
            s2 ^= s0;
            s3 ^= s1;
            s1 ^= s2;
            s0 ^= s3;
            s2 ^= t;
            s3 = rotl(s3, 45);
            uint64_t m = (x >> 32) * 7776ULL;
            if ((m & 0xFFFFFFFFULL) >= threshold) { v = m >> 32; break; }
        }
        int a1 = (int)(v % 6) + 1; v /= 6;
        int a2 = (int)(v % 6) + 1; v /= 6;
        int a3 = (int)(v % 6) + 1; v /= 6;
        int d1 = (int)(v % 6) + 1;
        int d2 = (int)(v / 6) + 1;
        if (ad < 3) a3 = 0;
        if (ad < 2) a2 = 0;
        if (dd < 2) d2 = 0;
        int hi = imax(a1, imax(a2, a3));
        int mid = a1 + a2 + a3 - hi - imin(a1, imin(a2, a3));
        int dhi = imax(d1, d2);
        int dlo = d1 + d2 - dhi;
        int first = (hi + p->a_bonus) > (dhi + p->d_bonus);
        int second = mid > dlo;
        int two = ad >= 2 && dd >= 2;
        a -= (1 - first) + two * (1 - second);
        d -= first + two * second;
        rolls++;
        if (rules == 2 && d > 0 && a > home) {
            int a6 = (a1 == 6) + (a2 == 6) + (a3 == 6);
            int d6 = (d1 == 6) + (d2 == 6);
            int good6 = p->good_attacks ? a6 : d6;
            int evil6 = p->good_attacks ? d6 : a6;
            if (good6 > 0) {
                r.outcome = p->good_attacks ? DEFENDER_RETREATED : ATTACKER_RETREATED;
                r.a = a; r.d = d; r.rolls = rolls;
                return r;
            }
            if (p->witch_king && evil6 > 0) {
                r.outcome = p->good_attacks ? ATTACKER_RETREATED : DEFENDER_RETREATED;
                r.a = a; r.d = d; r.rolls = rolls;
                return r;
            }
        }
    }
    r.outcome = d == 0 ? ATTACKER_WON : DEFENDER_HELD;
    r.a = a; r.d = d; r.rolls = rolls;
    return r;
}

/* Battles first .. first+n-1 into the output arrays; `rules` a constant at each call (the
 * compiler clones the function per rule set). Not inlined into main: there gcc ran out of
 * registers and kept the unit counts on the stack (measured 15% slower). */
static __attribute__((noinline)) void battle_range(
    uint64_t seed, uint64_t first, long n, const params *p, const int rules,
    int8_t *out_o, int32_t *out_a, int32_t *out_d, int32_t *out_r) {
    const params q = *p; /* a local copy: the int8_t stores cannot alias it */
    const uint64_t base_key = mix64(seed ^ SEED_SALT);
    for (long i = 0; i < n; i++) {
        result r = battle(base_key, first + (uint64_t)i, &q, rules);
        out_o[i] = (int8_t)r.outcome;
        out_a[i] = r.a;
        out_d[i] = r.d;
        out_r[i] = r.rolls;
    }
}

static double now(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

int main(int argc, char **argv) {
    if (argc != 13) {
        fprintf(stderr, "usage: %s SEED FIRST N ATTACKERS DEFENDERS RULES STOP_AT A_BONUS D_BONUS "
                        "GOOD_ATTACKS WITCH_KING MIN_SECONDS\n", argv[0]);
        return 2;
    }
    uint64_t seed = strtoull(argv[1], NULL, 10);
    uint64_t first = strtoull(argv[2], NULL, 10);
    long n = strtol(argv[3], NULL, 10);
    params p = {atoi(argv[4]), atoi(argv[5]), atoi(argv[6]), atoi(argv[7]),
                atoi(argv[8]), atoi(argv[9]), atoi(argv[10]), atoi(argv[11])};
    double min_seconds = strtod(argv[12], NULL);
    if (n < 1) {
        fprintf(stderr, "N must be at least 1\n");
        return 2;
    }
    int8_t *out_o = NULL;
    int32_t *out_a = NULL, *out_d = NULL, *out_r = NULL;
    long reps = 1;
    double dt;
    for (;;) {
        double t0 = now();
        for (long k = 0; k < reps; k++) {
            free(out_o); free(out_a); free(out_d); free(out_r);
            out_o = malloc((size_t)n * sizeof *out_o);
            out_a = malloc((size_t)n * sizeof *out_a);
            out_d = malloc((size_t)n * sizeof *out_d);
            out_r = malloc((size_t)n * sizeof *out_r);
            if (!out_o || !out_a || !out_d || !out_r) {
                fprintf(stderr, "out of memory\n");
                return 1;
            }
            switch (p.rules) {
            case 0: battle_range(seed, first, n, &p, 0, out_o, out_a, out_d, out_r); break;
            case 1: battle_range(seed, first, n, &p, 1, out_o, out_a, out_d, out_r); break;
            default: battle_range(seed, first, n, &p, 2, out_o, out_a, out_d, out_r); break;
            }
        }
        dt = now() - t0;
        if (dt >= min_seconds) break;
        long grow = dt * 2 >= min_seconds ? 2 : (long)(min_seconds / (dt > 1e-3 ? dt : 1e-3));
        reps *= grow < 2 ? 2 : grow;
    }
    uint64_t checksum = 0, total_rolls = 0;
    long counts[4] = {0, 0, 0, 0};
    for (long i = 0; i < n; i++) {
        uint64_t packed = (uint64_t)(uint8_t)out_o[i] | ((uint64_t)(uint32_t)out_a[i] << 8) |
                          ((uint64_t)(uint32_t)out_d[i] << 24) | ((uint64_t)(uint32_t)out_r[i] << 40);
        checksum += packed * (2 * (first + (uint64_t)i) + 1);
        total_rolls += (uint64_t)out_r[i];
        if (out_o[i] >= 0 && out_o[i] < 4) counts[out_o[i]]++;
    }
    printf("{\"battles\": %ld, \"reps\": %ld, \"seconds\": %.6f, \"battles_per_s\": %.1f, "
           "\"rolls\": %" PRIu64 ", \"checksum\": \"%016" PRIx64 "\", "
           "\"outcomes\": [%ld, %ld, %ld, %ld]}\n",
           n, reps, dt, (double)n * (double)reps / dt, total_rolls, checksum,
           counts[0], counts[1], counts[2], counts[3]);
    free(out_o); free(out_a); free(out_d); free(out_r);
    return 0;
}
