/* engine._fastai: the AI's rollouts in C.
 *
 * A compiled twin of the rollout machinery in engine/ai.py (_Model.qi, _Context.final,
 * _Context.rollout_single / rollout_pineapple) plus the sampling loop of the Monte Carlo
 * search.  It computes exactly what the Python code computes (the same formulas in the same
 * order, in double precision, without contraction), so a decision is the same whichever runs;
 * tests/engine/test_fastai.py checks this on many positions.
 *
 * What a row state is worth (its random-fill distribution, mean worth and the learned value's
 * per-row parts) is still decided in Python: on the first sight of a row state the core calls
 * back the model (``row_id(r, s)`` and ``row_info(r, s)``) and keeps the answer.  Everything the
 * rollouts do per card (row look-ups, foul chances, the value, the exact score of a finished
 * board) runs here.  The core never releases the GIL: Python threads that share a model are
 * serialised by it, and no pointer into a table is held across a call back into Python.
 */

#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <stdint.h>
#include <string.h>
#include <time.h>

#define MEMO_CAP 400000
#define MAX_STAGES 16
#define MAX_OPP 3
#define MAX_DIST 4096
#define CATEGORY_SHIFT 20
#define HIGH_CARD 0
#define PAIR 1
#define TRIPS 3
#define STRAIGHT 4
#define FLUSH 5
#define FULL_HOUSE 6
#define QUADS 7
#define STRAIGHT_FLUSH 8

/* ---------------------------------------------------------------------------------------------
 * An open-addressing hash map: a pair of uint64 keys (a, b) -> 16-byte value.  a = 0 marks an
 * empty slot, so a is stored plus one (every a used here is below 2^63); one-key maps pass b = 0
 * (the inlined hash then folds it away).
 */
typedef struct {
    double d;
    int32_t a;
    int32_t b;
} Val;

typedef struct {
    uint64_t *k1;
    uint64_t *k2;
    Val *vals;
    size_t cap; /* a power of two */
    size_t n;
} Map;

static inline uint64_t mix64(uint64_t x) {
    x ^= x >> 33;
    x *= 0xff51afd7ed558ccdULL;
    x ^= x >> 33;
    x *= 0xc4ceb9fe1a85ec53ULL;
    x ^= x >> 33;
    return x;
}

static int map_init(Map *m, size_t cap) {
    m->k1 = (uint64_t *)calloc(cap, sizeof(uint64_t));
    m->k2 = (uint64_t *)malloc(cap * sizeof(uint64_t));
    m->vals = (Val *)malloc(cap * sizeof(Val));
    m->cap = cap;
    m->n = 0;
    if (!m->k1 || !m->k2 || !m->vals) {
        free(m->k1);
        free(m->k2);
        free(m->vals);
        m->k1 = m->k2 = NULL;
        m->vals = NULL;
        PyErr_NoMemory();
        return -1;
    }
    return 0;
}

static void map_free(Map *m) {
    free(m->k1);
    free(m->k2);
    free(m->vals);
    m->k1 = m->k2 = NULL;
    m->vals = NULL;
    m->cap = m->n = 0;
}

static inline size_t map_slot(uint64_t a, uint64_t b) {
    return (size_t)mix64(a ^ mix64(b + 0x632be59bd9b4e019ULL));
}

static inline Val *map_get(const Map *m, uint64_t a, uint64_t b) {
    uint64_t k = a + 1;
    size_t mask = m->cap - 1;
    size_t i = map_slot(k, b) & mask;
    for (;;) {
        uint64_t here = m->k1[i];
        if (here == k && m->k2[i] == b) return &m->vals[i];
        if (here == 0) return NULL;
        i = (i + 1) & mask;
    }
}

/* Insert (or overwrite).  Like the Python memos, a map is emptied when it reaches MEMO_CAP. */
static int map_put(Map *m, uint64_t a, uint64_t b, Val v) {
    if (m->n >= MEMO_CAP) {
        memset(m->k1, 0, m->cap * sizeof(uint64_t));
        m->n = 0;
    }
    if ((m->n + 1) * 2 > m->cap) {
        Map bigger;
        if (map_init(&bigger, m->cap * 2) < 0) return -1;
        size_t mask = bigger.cap - 1;
        for (size_t j = 0; j < m->cap; j++) {
            if (!m->k1[j]) continue;
            size_t i = map_slot(m->k1[j], m->k2[j]) & mask;
            while (bigger.k1[i]) i = (i + 1) & mask;
            bigger.k1[i] = m->k1[j];
            bigger.k2[i] = m->k2[j];
            bigger.vals[i] = m->vals[j];
        }
        bigger.n = m->n;
        map_free(m);
        *m = bigger;
    }
    uint64_t k = a + 1;
    size_t mask = m->cap - 1;
    size_t i = map_slot(k, b) & mask;
    while (m->k1[i] && !(m->k1[i] == k && m->k2[i] == b)) i = (i + 1) & mask;
    if (!m->k1[i]) {
        m->k1[i] = k;
        m->k2[i] = b;
        m->n++;
    }
    m->vals[i] = v;
    return 0;
}

/* ---------------------------------------------------------------------------------------------
 * Hand values of complete rows: the evaluator's table (key = card sum & MASK), loaded once.
 */
static Map VALUES;
static int values_loaded = 0;
static uint64_t VALUE_MASK = 0;

static inline int32_t value_of(uint64_t s) {
    Val *v = map_get(&VALUES, s & VALUE_MASK, 0);
    return v ? v->a : -1;
}

/* ---------------------------------------------------------------------------------------------
 * Small xoshiro256** generator for the sampled futures (seeded from Python's rng).
 */
typedef struct {
    uint64_t s[4];
} Rng;

static inline uint64_t rotl(uint64_t x, int k) { return (x << k) | (x >> (64 - k)); }

static void rng_seed(Rng *r, uint64_t seed) {
    for (int i = 0; i < 4; i++) {
        seed += 0x9e3779b97f4a7c15ULL;
        uint64_t z = seed;
        z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
        z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
        r->s[i] = z ^ (z >> 31);
    }
}

static inline uint64_t rng_next(Rng *r) {
    uint64_t *s = r->s;
    uint64_t result = rotl(s[1] * 5, 7) * 9;
    uint64_t t = s[1] << 17;
    s[2] ^= s[0];
    s[3] ^= s[1];
    s[1] ^= s[2];
    s[0] ^= s[3];
    s[2] ^= t;
    s[3] = rotl(s[3], 45);
    return result;
}

/* uniform in [0, n) without modulo bias (Lemire) */
static inline uint32_t rng_below(Rng *r, uint32_t n) {
    uint64_t m = (uint64_t)(uint32_t)(rng_next(r) >> 32) * n;
    uint32_t low = (uint32_t)m;
    if (low < n) {
        uint32_t t = (uint32_t)(-n) % n;
        while (low < t) {
            m = (uint64_t)(uint32_t)(rng_next(r) >> 32) * n;
            low = (uint32_t)m;
        }
    }
    return (uint32_t)(m >> 32);
}

/* the first `need` cards of a partial Fisher-Yates shuffle of pool (pool is permuted) */
static void rng_sample(Rng *r, uint64_t *pool, int n, int need, uint64_t *out) {
    for (int i = 0; i < need; i++) {
        int j = i + (int)rng_below(r, (uint32_t)(n - i));
        uint64_t t = pool[i];
        pool[i] = pool[j];
        pool[j] = t;
        out[i] = pool[i];
    }
}

/* ---------------------------------------------------------------------------------------------
 * Core: the per-model tables (one per engine.ai._Model).
 */
#define MAX_FEATS 64
#define ROW_FEATS 24

typedef struct {
    int registered;
    int free;
    double mean;
    int ndist;
    int32_t *dist;   /* sorted values the row reaches */
    double *parts;   /* nstages * 5: the learned value's per-row parts */
    int nfeats;
    double feats[ROW_FEATS]; /* _row_features */
} RowRec;

/* Row states and what they are worth: a model's (rows from Python) or one decision's (rows
 * computed here from the cards the seat has not seen). */
typedef struct {
    Map rows[3];   /* (row state s, base) -> row id (in .a) */
    Map abs;       /* abstract row key -> row id (live rows) */
    Map ptm, pmb;   /* (id << 24 | id) -> foul chance */
    RowRec *recs;
    size_t nrecs;
    long next_id;   /* live rows: the next id */
} RowTable;

static int tab_init(RowTable *t, size_t cap) {
    for (int r = 0; r < 3; r++)
        if (!t->rows[r].k1 && map_init(&t->rows[r], cap) < 0) return -1;
    if (!t->abs.k1 && map_init(&t->abs, cap) < 0) return -1;
    if (!t->ptm.k1 && map_init(&t->ptm, cap) < 0) return -1;
    if (!t->pmb.k1 && map_init(&t->pmb, cap) < 0) return -1;
    if (t->next_id < 1) t->next_id = 1;
    return 0;
}

static void tab_free(RowTable *t) {
    for (int r = 0; r < 3; r++) map_free(&t->rows[r]);
    map_free(&t->abs);
    map_free(&t->ptm);
    map_free(&t->pmb);
    for (size_t i = 0; i < t->nrecs; i++) {
        free(t->recs[i].dist);
        free(t->recs[i].parts);
    }
    free(t->recs);
    t->recs = NULL;
    t->nrecs = 0;
}

static int tab_reserve(RowTable *t, size_t id) {
    if (id < t->nrecs) return 0;
    size_t n = t->nrecs ? t->nrecs : 1024;
    while (n <= id) n *= 2;
    RowRec *recs = (RowRec *)realloc(t->recs, n * sizeof(RowRec));
    if (!recs) {
        PyErr_NoMemory();
        return -1;
    }
    memset(recs + t->nrecs, 0, (n - t->nrecs) * sizeof(RowRec));
    t->recs = recs;
    t->nrecs = n;
    return 0;
}

/* The learned value's weights of one stage as engine.ai._Stage arranges them. */
typedef struct {
    int i, j;
    double v;
} Sq;

typedef struct {
    double w0, pc, pp, p1c, p2c, board[6], mean[3];
    int nlin[3];
    double *lin[3];
    int nsq[3];
    Sq *sq[3];
    double *atom[3][3]; /* [p, p1, p2][row], nlin[row] each */
} Stage;

typedef struct {
    PyObject_HEAD
    PyObject *row_id;   /* callable (r, s) -> abstract row id */
    PyObject *row_info; /* callable (r, s) -> (free, mean, dist, feats) */
    int strict;
    double loss;
    int nstages;
    int stage_index[MAX_STAGES]; /* stage (free slots) -> index, -1 when none */
    Stage st[MAX_STAGES];
    RowTable tab;      /* rows from Python (engine.ai._Model.row) */
    int32_t tables[3][64]; /* quantile tables of final row values */
    int ntable[3];
} Core;

static PyTypeObject CoreType;

/* _Stage.part: row r's share of the learned value at stage k, from e = (mean, *feats) */
static void stage_part(const Stage *st, int r, const double *e, int ne, double mean, double *out) {
    double own = 0.0, squares = 0.0, atoms[3] = {0.0, 0.0, 0.0};
    int n = st->nlin[r] < ne ? st->nlin[r] : ne;
    for (int k = 0; k < n; k++) own += st->lin[r][k] * e[k];
    for (int k = 0; k < st->nsq[r]; k++) {
        const Sq *q = &st->sq[r][k];
        squares += (q->v * e[q->i]) * e[q->j];
    }
    own += squares;
    for (int a = 0; a < 3; a++)
        for (int k = 0; k < n; k++) atoms[a] += st->atom[a][r][k] * e[k];
    out[0] = own;
    out[1] = st->mean[r] * mean;
    out[2] = atoms[0];
    out[3] = atoms[1];
    out[4] = atoms[2];
}

/* Fill a row's record: its distribution and parts (malloc'ed, now the record's), features
 * e[1..nf] (e[0] = mean) and each stage's parts of the learned value. */
static void rec_fill(const Core *c, RowRec *rec, int r, int free_slots, double mean, int32_t *dist,
                     int nd, const double *e, int nf, double *parts) {
    for (int k = 0; k < c->nstages; k++) stage_part(&c->st[k], r, e, nf + 1, mean, parts + k * 5);
    rec->free = free_slots;
    rec->mean = mean;
    rec->ndist = nd;
    rec->dist = dist;
    rec->parts = parts;
    rec->nfeats = nf < ROW_FEATS ? nf : ROW_FEATS;
    for (int i = 0; i < rec->nfeats; i++) rec->feats[i] = e[i + 1];
    rec->registered = 1;
}

static int core_register(Core *c, int r, uint64_t s, long id) {
    PyObject *info = PyObject_CallFunction(c->row_info, "iK", r, (unsigned long long)s);
    if (!info) return -1;
    int free_slots;
    double mean;
    PyObject *dist, *feats;
    if (!PyTuple_Check(info)) {
        Py_DECREF(info);
        PyErr_SetString(PyExc_TypeError, "row_info must return a tuple");
        return -1;
    }
    if (!PyArg_ParseTuple(info, "idOO", &free_slots, &mean, &dist, &feats)) {
        Py_DECREF(info);
        return -1;
    }
    PyObject *dseq = PySequence_Fast(dist, "row dist must be a sequence");
    PyObject *fseq = dseq ? PySequence_Fast(feats, "row feats must be a sequence") : NULL;
    if (!dseq || !fseq) {
        Py_XDECREF(dseq);
        Py_DECREF(info);
        return -1;
    }
    Py_ssize_t nd = PySequence_Fast_GET_SIZE(dseq), nf = PySequence_Fast_GET_SIZE(fseq);
    if (nf + 1 > MAX_FEATS || nd > MAX_DIST || nd == 0) {
        Py_DECREF(dseq);
        Py_DECREF(fseq);
        Py_DECREF(info);
        PyErr_SetString(PyExc_ValueError, "row_info: bad dist or feats size");
        return -1;
    }
    double e[MAX_FEATS];
    e[0] = mean;
    for (Py_ssize_t i = 0; i < nf; i++) e[i + 1] = PyFloat_AsDouble(PySequence_Fast_GET_ITEM(fseq, i));
    Py_DECREF(fseq);
    int32_t *d = (int32_t *)malloc((size_t)nd * sizeof(int32_t));
    double *p = (double *)calloc((size_t)(c->nstages ? c->nstages : 1) * 5, sizeof(double));
    if (!d || !p) {
        free(d);
        free(p);
        Py_DECREF(dseq);
        Py_DECREF(info);
        PyErr_NoMemory();
        return -1;
    }
    for (Py_ssize_t i = 0; i < nd; i++) {
        d[i] = (int32_t)PyLong_AsLong(PySequence_Fast_GET_ITEM(dseq, i));
    }
    Py_DECREF(dseq);
    Py_DECREF(info);
    if (PyErr_Occurred()) {
        free(d);
        free(p);
        return -1;
    }
    /* the call back ran Python: another thread may have registered the row meanwhile */
    if (tab_reserve(&c->tab, (size_t)id) < 0) {
        free(d);
        free(p);
        return -1;
    }
    RowRec *rec = &c->tab.recs[id];
    if (rec->registered) {
        free(d);
        free(p);
        return 0;
    }
    rec_fill(c, rec, r, free_slots, mean, d, (int)nd, e, (int)nf, p);
    return 0;
}

/* abstract id of row r in state s (calls back into Python on the first sight); -1 on error */
static long core_row(Core *c, int r, uint64_t s) {
    Val *v = map_get(&c->tab.rows[r], s, 0);
    if (v) return v->a;
    PyObject *res = PyObject_CallFunction(c->row_id, "iK", r, (unsigned long long)s);
    if (!res) return -1;
    long id = PyLong_AsLong(res);
    Py_DECREF(res);
    if (id < 0) {
        if (!PyErr_Occurred()) PyErr_SetString(PyExc_ValueError, "row ids are positive");
        return -1;
    }
    if ((size_t)id >= c->tab.nrecs || !c->tab.recs[id].registered) {
        if (core_register(c, r, s, id) < 0) return -1;
    }
    Val nv = {0.0, (int32_t)id, 0};
    if (map_put(&c->tab.rows[r], s, 0, nv) < 0) return -1;
    return id;
}

static inline size_t bisect_left32(const int32_t *a, int n, int32_t x) {
    size_t lo = 0, hi = (size_t)n;
    while (lo < hi) {
        size_t mid = (lo + hi) / 2;
        if (a[mid] < x) lo = mid + 1; else hi = mid;
    }
    return lo;
}

static inline size_t bisect_right32(const int32_t *a, int n, int32_t x) {
    size_t lo = 0, hi = (size_t)n;
    while (lo < hi) {
        size_t mid = (lo + hi) / 2;
        if (x < a[mid]) hi = mid; else lo = mid + 1;
    }
    return lo;
}

static inline int32_t top_compare_mask(int32_t top) {
    int cat = top >> CATEGORY_SHIFT;
    if (cat == PAIR) return ~0xFFF;
    if (cat == TRIPS) return ~0xFFFF;
    return ~0xFF;
}

static int cmp32(const void *x, const void *y) {
    int32_t a = *(const int32_t *)x, b = *(const int32_t *)y;
    return (a > b) - (a < b);
}

static double core_ptm(const Core *c, RowTable *tab, long a, long b) {
    uint64_t key = (uint64_t)a << 24 | (uint64_t)b;
    Val *v = map_get(&tab->ptm, key, 0);
    if (v) return v->d;
    RowRec *t = &tab->recs[a], *m = &tab->recs[b];
    long long bad = 0;
    if (c->strict) {
        int32_t tr[MAX_DIST];
        int nm = m->ndist < MAX_DIST ? m->ndist : MAX_DIST;
        int32_t last_mask = 0;
        int have = 0;
        for (int i = 0; i < t->ndist; i++) {
            int32_t x = t->dist[i];
            int32_t keep = top_compare_mask(x);
            if (!have || keep != last_mask) {
                for (int j = 0; j < nm; j++) tr[j] = m->dist[j] & keep;
                qsort(tr, (size_t)nm, sizeof(int32_t), cmp32);
                last_mask = keep;
                have = 1;
            }
            bad += (long long)bisect_right32(tr, nm, x);
        }
    } else {
        for (int i = 0; i < t->ndist; i++) bad += (long long)bisect_left32(m->dist, m->ndist, t->dist[i]);
    }
    double p = (double)bad / (double)((long long)t->ndist * (long long)m->ndist);
    Val nv = {p, 0, 0};
    map_put(&tab->ptm, key, 0, nv);
    return p;
}

static double core_pmb(RowTable *tab, long a, long b) {
    uint64_t key = (uint64_t)a << 24 | (uint64_t)b;
    Val *v = map_get(&tab->pmb, key, 0);
    if (v) return v->d;
    RowRec *m = &tab->recs[a], *bt = &tab->recs[b];
    long long bad = 0;
    for (int i = 0; i < m->ndist; i++) bad += (long long)bisect_left32(bt->dist, bt->ndist, m->dist[i]);
    double p = (double)bad / (double)((long long)m->ndist * (long long)bt->ndist);
    Val nv = {p, 0, 0};
    map_put(&tab->pmb, key, 0, nv);
    return p;
}

/* _Model.qi: the rollout policy's value of a board from its rows' abstract ids */
static double core_qi(const Core *c, RowTable *tab, long a, long b, long d) {
    double p1 = core_ptm(c, tab, a, b);
    double p2 = core_pmb(tab, b, d);
    double p = p1 + p2;
    if (p > 1.0) p = 1.0;
    RowRec *ra = &tab->recs[a], *rb = &tab->recs[b], *rc = &tab->recs[d];
    if (c->nstages) {
        int stage = ra->free + rb->free + rc->free;
        int k = stage < MAX_STAGES ? c->stage_index[stage] : -1;
        if (k >= 0) {
            const double *ga = ra->parts + k * 5, *gb = rb->parts + k * 5, *gc = rc->parts + k * 5;
            const Stage *st = &c->st[k];
            const double *bd = st->board;
            double ab = bd[0], ac = bd[1], bc = bd[2], q1 = bd[3], q2 = bd[4], q3 = bd[5];
            double ma = ra->mean, mb = rb->mean, mc = rc->mean;
            double v = st->w0 + ga[0];
            v = v + gb[0];
            v = v + gc[0];
            v = v + (1.0 - p) * ((ga[1] + gb[1]) + gc[1]);
            v = v + p * ((((st->pc + st->pp * p) + ga[2]) + gb[2]) + gc[2]);
            v = v + p1 * (((((st->p1c + q1 * p2) + q2 * p1) + ga[3]) + gb[3]) + gc[3]);
            v = v + p2 * ((((st->p2c + q3 * p2) + ga[4]) + gb[4]) + gc[4]);
            v = v + ma * (ab * mb + ac * mc);
            v = v + (bc * mb) * mc;
            return v;
        }
    }
    return (1.0 - p) * ((ra->mean + rb->mean) + rc->mean) - p * c->loss;
}

static void stage_free(Stage *st) {
    for (int r = 0; r < 3; r++) {
        free(st->lin[r]);
        free(st->sq[r]);
        st->lin[r] = NULL;
        st->sq[r] = NULL;
        for (int a = 0; a < 3; a++) {
            free(st->atom[a][r]);
            st->atom[a][r] = NULL;
        }
    }
}

static void core_dealloc(Core *c) {
    for (int k = 0; k < MAX_STAGES; k++) stage_free(&c->st[k]);
    Py_XDECREF(c->row_id);
    Py_XDECREF(c->row_info);
    tab_free(&c->tab);
    Py_TYPE(c)->tp_free((PyObject *)c);
}

/* a sequence of at most `cap` ints into `ints` (int32) or `cards` (uint64, the other NULL) */
static int read_seq(PyObject *seq, int32_t *ints, uint64_t *cards, int cap, int *n) {
    PyObject *fast = PySequence_Fast(seq, ints ? "a sequence of ints expected"
                                               : "a sequence of cards expected");
    if (!fast) return -1;
    Py_ssize_t len = PySequence_Fast_GET_SIZE(fast);
    if (len > cap) {
        Py_DECREF(fast);
        PyErr_SetString(PyExc_ValueError, ints ? "sequence too long" : "too many cards");
        return -1;
    }
    for (Py_ssize_t i = 0; i < len; i++) {
        PyObject *item = PySequence_Fast_GET_ITEM(fast, i);
        if (ints)
            ints[i] = (int32_t)PyLong_AsLong(item);
        else
            cards[i] = (uint64_t)PyLong_AsUnsignedLongLong(item);
    }
    Py_DECREF(fast);
    *n = (int)len;
    return PyErr_Occurred() ? -1 : 0;
}

static int read_ints(PyObject *seq, int32_t *out, int cap, int *n) {
    return read_seq(seq, out, NULL, cap, n);
}

static int read_cards(PyObject *seq, uint64_t *out, int cap, int *n) {
    return read_seq(seq, NULL, out, cap, n);
}

static int read_doubles(PyObject *seq, double **out, int *n) {
    PyObject *fast = PySequence_Fast(seq, "a sequence of floats expected");
    if (!fast) return -1;
    Py_ssize_t len = PySequence_Fast_GET_SIZE(fast);
    double *d = (double *)malloc((size_t)(len ? len : 1) * sizeof(double));
    if (!d) {
        Py_DECREF(fast);
        PyErr_NoMemory();
        return -1;
    }
    for (Py_ssize_t i = 0; i < len; i++) d[i] = PyFloat_AsDouble(PySequence_Fast_GET_ITEM(fast, i));
    Py_DECREF(fast);
    if (PyErr_Occurred()) {
        free(d);
        return -1;
    }
    free(*out);
    *out = d;
    if (n) *n = (int)len;
    return 0;
}

/* one stage: (stage, w0, pc, pp, p1c, p2c, board[6], mean[3], lin[3][], square[3][(i, j, v)],
 *             atom[3][3][]) as engine.ai._Stage holds them */
static int stage_parse(Stage *stg, PyObject *item, int *stage_index, int k) {
    PyObject *lin, *square, *atom;
    int stage;
    if (!PyTuple_Check(item)) {
        PyErr_SetString(PyExc_TypeError, "a stage is a tuple");
        return -1;
    }
    if (!PyArg_ParseTuple(item, "iddddd(dddddd)(ddd)OOO", &stage, &stg->w0, &stg->pc, &stg->pp,
                          &stg->p1c, &stg->p2c, &stg->board[0], &stg->board[1], &stg->board[2],
                          &stg->board[3], &stg->board[4], &stg->board[5], &stg->mean[0],
                          &stg->mean[1], &stg->mean[2], &lin, &square, &atom))
        return -1;
    if (stage < 0 || stage >= MAX_STAGES) {
        PyErr_SetString(PyExc_ValueError, "stage out of range");
        return -1;
    }
    if (PySequence_Size(lin) != 3 || PySequence_Size(square) != 3 || PySequence_Size(atom) != 3) {
        if (!PyErr_Occurred()) PyErr_SetString(PyExc_ValueError, "three rows per stage expected");
        return -1;
    }
    for (int r = 0; r < 3; r++) {
        PyObject *one = PySequence_GetItem(lin, r);
        if (!one) return -1;
        int rc = read_doubles(one, &stg->lin[r], &stg->nlin[r]);
        Py_DECREF(one);
        if (rc < 0) return -1;
        if (stg->nlin[r] + 1 > MAX_FEATS) {
            PyErr_SetString(PyExc_ValueError, "too many row weights");
            return -1;
        }
        one = PySequence_GetItem(square, r);
        if (!one) return -1;
        PyObject *fast = PySequence_Fast(one, "square terms must be a sequence");
        Py_DECREF(one);
        if (!fast) return -1;
        Py_ssize_t nq = PySequence_Fast_GET_SIZE(fast);
        free(stg->sq[r]);
        stg->sq[r] = (Sq *)malloc((size_t)(nq ? nq : 1) * sizeof(Sq));
        stg->nsq[r] = (int)nq;
        if (!stg->sq[r]) {
            Py_DECREF(fast);
            PyErr_NoMemory();
            return -1;
        }
        for (Py_ssize_t q = 0; q < nq; q++) {
            Sq *t = &stg->sq[r][q];
            PyObject *term = PySequence_Fast_GET_ITEM(fast, q);
            if (!PyTuple_Check(term) || !PyArg_ParseTuple(term, "iid", &t->i, &t->j, &t->v)) {
                if (!PyErr_Occurred()) PyErr_SetString(PyExc_TypeError, "a square term is (i, j, v)");
                Py_DECREF(fast);
                return -1;
            }
            if (t->i < 0 || t->j < 0 || t->i >= stg->nlin[r] || t->j >= stg->nlin[r]) {
                Py_DECREF(fast);
                PyErr_SetString(PyExc_ValueError, "square term index out of range");
                return -1;
            }
        }
        Py_DECREF(fast);
    }
    for (int a = 0; a < 3; a++) {
        PyObject *rows = PySequence_GetItem(atom, a);
        if (!rows) return -1;
        for (int r = 0; r < 3; r++) {
            PyObject *one = PySequence_GetItem(rows, r);
            int n = 0;
            if (!one || read_doubles(one, &stg->atom[a][r], &n) < 0) {
                Py_XDECREF(one);
                Py_DECREF(rows);
                return -1;
            }
            Py_DECREF(one);
            if (n != stg->nlin[r]) {
                Py_DECREF(rows);
                PyErr_SetString(PyExc_ValueError, "atom weights: one per row feature");
                return -1;
            }
        }
        Py_DECREF(rows);
    }
    stage_index[stage] = k;
    return 0;
}

/* Core(row_id, row_info, strict, loss, stages, tables)
 *   stages: sequence of (stage, w0, pc, pp, p1c, p2c, (6 board weights)) in the order of the
 *   parts row_info returns; tables: three sequences of final row values (quantiles). */
static int core_init(Core *c, PyObject *args, PyObject *kw) {
    PyObject *row_id, *row_info, *stages, *tables;
    int strict;
    double loss;
    static char *names[] = {"row_id", "row_info", "strict", "loss", "stages", "tables", NULL};
    if (!PyArg_ParseTupleAndKeywords(args, kw, "OOpdOO", names, &row_id, &row_info, &strict,
                                     &loss, &stages, &tables))
        return -1;
    if (!values_loaded) {
        PyErr_SetString(PyExc_RuntimeError, "engine._fastai.load_values was not called");
        return -1;
    }
    Py_INCREF(row_id);
    Py_XSETREF(c->row_id, row_id);
    Py_INCREF(row_info);
    Py_XSETREF(c->row_info, row_info);
    c->strict = strict;
    c->loss = loss;
    for (int i = 0; i < MAX_STAGES; i++) c->stage_index[i] = -1;
    PyObject *st = PySequence_Fast(stages, "stages must be a sequence");
    if (!st) return -1;
    Py_ssize_t ns = PySequence_Fast_GET_SIZE(st);
    if (ns > MAX_STAGES) {
        Py_DECREF(st);
        PyErr_SetString(PyExc_ValueError, "too many stages");
        return -1;
    }
    for (int k = 0; k < MAX_STAGES; k++) stage_free(&c->st[k]);
    c->nstages = (int)ns;
    for (Py_ssize_t k = 0; k < ns; k++) {
        if (stage_parse(&c->st[k], PySequence_Fast_GET_ITEM(st, k), &c->stage_index[0], (int)k) < 0) {
            Py_DECREF(st);
            return -1;
        }
    }
    Py_DECREF(st);
    PyObject *tb = PySequence_Fast(tables, "tables must be a sequence");
    if (!tb) return -1;
    if (PySequence_Fast_GET_SIZE(tb) != 3) {
        Py_DECREF(tb);
        PyErr_SetString(PyExc_ValueError, "three quantile tables expected");
        return -1;
    }
    for (int r = 0; r < 3; r++) {
        if (read_ints(PySequence_Fast_GET_ITEM(tb, r), c->tables[r], 64, &c->ntable[r]) < 0) {
            Py_DECREF(tb);
            return -1;
        }
    }
    Py_DECREF(tb);
    return tab_init(&c->tab, 1 << 14);
}

static PyObject *core_qi_py(Core *c, PyObject *args) {
    unsigned long long s0, s1, s2;
    if (!PyArg_ParseTuple(args, "KKK", &s0, &s1, &s2)) return NULL;
    long a = core_row(c, 0, s0);
    if (a < 0) return NULL;
    long b = core_row(c, 1, s1);
    if (b < 0) return NULL;
    long d = core_row(c, 2, s2);
    if (d < 0) return NULL;
    return PyFloat_FromDouble(core_qi(c, &c->tab, a, b, d));
}

static PyMethodDef core_methods[] = {
    {"q", (PyCFunction)core_qi_py, METH_VARARGS,
     "q(s0, s1, s2): the rollout policy's value of a board given by its row sums."},
    {NULL, NULL, 0, NULL},
};

static PyTypeObject CoreType = {
    PyVarObject_HEAD_INIT(NULL, 0)
    .tp_name = "engine._fastai.Core",
    .tp_basicsize = sizeof(Core),
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_doc = "The per-model tables of the compiled rollouts.",
    .tp_new = PyType_GenericNew,
    .tp_init = (initproc)core_init,
    .tp_dealloc = (destructor)core_dealloc,
    .tp_methods = core_methods,
};

/* ---------------------------------------------------------------------------------------------
 * Ctx: one decision (the opponents as the seat sees them; exact scores of finished boards).
 */
typedef struct {
    double q;
    int32_t exact[3]; /* -1: the row is not complete */
    int32_t lower[3];
} Opp;

typedef struct {
    PyObject_HEAD
    Core *core;
    int nopp;
    Opp opp[MAX_OPP];
    int royal;
    int has_fl;
    int ofc;
    int progressive;
    double fl_value[32];
    int moon;
    double moon_points;
    double scoop;
    double overall;
    double foul_value;
    double loss;
    int strict;
    Map memo;
    int error;
    RowTable *tab;     /* the rows in use: the model's (from Python) or this decision's own */
    RowTable own;
    int live;          /* rows computed here from the cards the seat has not seen */
    uint64_t live_pool[64];
    int live_n;
    int samples;       /* random fills per live row */
    uint64_t live_seed;
    double equity_weight;
    uint64_t base[3];  /* live rows: the candidate's rows at the decision (cards the seat saw) */
    /* the rollout policy's lookahead (0 draws: greedy on the value, as engine.ai does) */
    int la_draws;   /* sampled next streets per examined move */
    int la_moves;   /* moves examined (the best by the value) */
    int la_free;    /* streets that start with at most this many free slots look ahead */
    Rng la_rng;
} Ctx;

static PyTypeObject CtxType;

static inline int top_royalty(int32_t v) {
    int cat = v >> CATEGORY_SHIFT, first = (v >> 16) & 15;
    if (cat == TRIPS) return 10 + first - 2;
    if (cat == PAIR) return first >= 6 ? first - 5 : 0;
    return 0;
}

static inline int is_royal(int32_t v) {
    return (v >> CATEGORY_SHIFT) == STRAIGHT_FLUSH && ((v >> 16) & 15) == 14;
}

static inline int middle_royalty(int32_t v) {
    if (is_royal(v)) return 50;
    switch (v >> CATEGORY_SHIFT) {
    case TRIPS: return 2;
    case STRAIGHT: return 4;
    case FLUSH: return 8;
    case FULL_HOUSE: return 12;
    case QUADS: return 20;
    case STRAIGHT_FLUSH: return 30;
    default: return 0;
    }
}

static inline int bottom_royalty(int32_t v) {
    if (is_royal(v)) return 25;
    switch (v >> CATEGORY_SHIFT) {
    case STRAIGHT: return 2;
    case FLUSH: return 4;
    case FULL_HOUSE: return 6;
    case QUADS: return 10;
    case STRAIGHT_FLUSH: return 15;
    default: return 0;
    }
}

static inline int values_foul(int32_t t, int32_t m, int32_t b, int strict) {
    if (m > b) return 1;
    if (strict) {
        int32_t truncated = m & top_compare_mask(t);
        return t >= truncated; /* row_at_most(t, m) >= 0 */
    }
    return t > m;
}

static inline int fl_cards(const Ctx *x, int32_t top) {
    if (!x->has_fl) return 0;
    int cat = top >> CATEGORY_SHIFT, first = (top >> 16) & 15, level;
    if (cat == TRIPS) level = 4;
    else if (cat == PAIR && first >= 12) level = first - 11;
    else return 0;
    if (x->ofc) return 13;
    if (!x->progressive) return 14;
    return 13 + level;
}

static inline void win_lose(const Ctx *x, const Opp *o, int row, int32_t v, double *w, double *l) {
    int32_t e = o->exact[row];
    if (e >= 0) {
        if (v > e) { *w = 1.0; *l = 0.0; }
        else if (v < e) { *w = 0.0; *l = 1.0; }
        else { *w = 0.0; *l = 0.0; }
        return;
    }
    int32_t lb = o->lower[row];
    const int32_t *table = x->core->tables[row];
    int n = x->core->ntable[row];
    long lo = (long)bisect_left32(table, n, lb);
    long total = n - lo;
    if (v < lb) { *w = 0.0; *l = 1.0; return; }
    if (total == 0) { *w = 0.5; *l = 0.5; return; }
    long br = (long)bisect_right32(table, n, v);
    *w = (double)((long)bisect_left32(table, n, v) - lo) / (double)total;
    *l = (double)(n - (br > lo ? br : lo)) / (double)total;
}

static double ctx_rows(const Ctx *x, const Opp *o, int32_t vt, int32_t vm, int32_t vb) {
    double w0, l0, w1, l1, w2, l2;
    win_lose(x, o, 0, vt, &w0, &l0);
    win_lose(x, o, 1, vm, &w1, &l1);
    win_lose(x, o, 2, vb, &w2, &l2);
    double ev = w0 - l0;
    ev = ev + w1;
    ev = ev - l1;
    ev = ev + w2;
    ev = ev - l2;
    if (x->scoop != 0.0) ev += x->scoop * ((w0 * w1) * w2 - (l0 * l1) * l2);
    if (x->overall != 0.0) {
        double probs[3][2] = {{w0, l0}, {w1, l1}, {w2, l2}};
        double more = 0.0, less = 0.0;
        for (int a = 0; a < 3; a++)
            for (int b = 0; b < 3; b++)
                for (int c = 0; c < 3; c++) {
                    int outs[3] = {a, b, c};
                    double p = 1.0;
                    int net = 0;
                    for (int k = 0; k < 3; k++) {
                        double w = probs[k][0], lo = probs[k][1];
                        if (outs[k] == 0) {
                            p *= w;
                            net += 1;
                        } else if (outs[k] == 1) {
                            p *= lo;
                            net -= 1;
                        } else {
                            double tie = 1.0 - w - lo;
                            p *= tie > 0.0 ? tie : 0.0;
                        }
                    }
                    if (net > 0) more += p;
                    else if (net < 0) less += p;
                }
        ev += x->overall * (more - less);
    }
    return ev;
}

typedef struct {
    double v;
    int foul, roy, flc;
} Final;

/* _Context.final: (value, fouled, royalties, fantasyland cards) of a finished board */
static Final ctx_final(Ctx *x, int32_t vt, int32_t vm, int32_t vb) {
    uint64_t key = (uint64_t)(vt >> 8) << 48 | (uint64_t)vm << 24 | (uint64_t)vb;
    Val *hit = map_get(&x->memo, key, 0);
    Final out;
    if (hit) {
        out.v = hit->d;
        out.foul = hit->a & 1;
        out.roy = hit->a >> 1;
        out.flc = hit->b;
        return out;
    }
    if (values_foul(vt, vm, vb, x->strict)) {
        out.v = x->foul_value;
        out.foul = 1;
        out.roy = 0;
        out.flc = 0;
    } else {
        int roy = x->royal ? top_royalty(vt) + middle_royalty(vm) + bottom_royalty(vb) : 0;
        int flc = fl_cards(x, vt);
        double bonus = (double)roy + (flc > 0 ? x->fl_value[flc < 32 ? flc : 31] : 0.0);
        if (x->moon && (vb >> CATEGORY_SHIFT) == HIGH_CARD && ((vb >> 16) & 15) <= 11)
            bonus += x->moon_points;
        double total = 0.0;
        Opp deflt = {0.2, {-1, -1, -1}, {0, 0, 0}};
        int n = x->nopp ? x->nopp : 1;
        for (int i = 0; i < n; i++) {
            const Opp *o = x->nopp ? &x->opp[i] : &deflt;
            total += bonus + o->q * x->loss;
            if (o->q < 1.0) total += (1.0 - o->q) * ctx_rows(x, o, vt, vm, vb);
        }
        out.v = total;
        out.foul = 0;
        out.roy = roy;
        out.flc = flc;
    }
    Val nv = {out.v, out.foul | out.roy << 1, out.flc};
    if (map_put(&x->memo, key, 0, nv) < 0) x->error = 1;
    return out;
}

static inline Final ctx_final_sums(Ctx *x, uint64_t s0, uint64_t s1, uint64_t s2) {
    return ctx_final(x, value_of(s0), value_of(s1), value_of(s2));
}

/* ---------------------------------------------------------------------------------------------
 * Live rows: engine.ai._Model.row computed here for one decision, with the random fills drawn
 * from the cards the seat has not seen (minus the row's own cards dealt by the rollout), so
 * dead cards count.  The same features and learned value as the model's rows.
 */
static const int FULL[3] = {3, 5, 5};
static const uint64_t POW5[13] = {1ULL, 5ULL, 25ULL, 125ULL, 625ULL, 3125ULL, 15625ULL,
                                  78125ULL, 390625ULL, 1953125ULL, 9765625ULL, 48828125ULL,
                                  244140625ULL};

static void rank_counts(uint64_t rank_key, int counts[13]) {
    for (int k = 0; k < 13; k++) {
        counts[k] = (int)(rank_key % 5);
        rank_key /= 5;
    }
}

static inline int card_rank(uint64_t card) {
    uint64_t rp = card >> 28;
    for (int k = 0; k < 13; k++)
        if (POW5[k] == rp) return k;
    return -1;
}

static inline int card_suit(uint64_t card) {
    uint64_t sp = card & ((1ULL << 28) - 1);
    for (int k = 0; k < 4; k++)
        if (sp == (13ULL << (7 * k))) return k;
    return -1;
}

/* _made_value: a lower bound (evaluator scale) for any row holding these ranks */
static int32_t made_value(const int c[13]) {
    int q = -1, t = -1, p0 = -1, p1 = -1, s0 = -1;
    for (int r = 12; r >= 0; r--) {
        if (c[r] >= 4 && q < 0) q = r;
        else if (c[r] == 3 && t < 0) t = r;
        else if (c[r] == 2) {
            if (p0 < 0) p0 = r;
            else if (p1 < 0) p1 = r;
        } else if (c[r] == 1 && s0 < 0) s0 = r;
    }
    if (q >= 0) return QUADS << CATEGORY_SHIFT | (q + 2) << 16;
    if (t >= 0) return TRIPS << CATEGORY_SHIFT | (t + 2) << 16;
    if (p1 >= 0) return 2 << CATEGORY_SHIFT | (p0 + 2) << 16 | (p1 + 2) << 12;
    if (p0 >= 0) return PAIR << CATEGORY_SHIFT | (p0 + 2) << 16;
    if (s0 >= 0) return HIGH_CARD << CATEGORY_SHIFT | (s0 + 2) << 16;
    return 0;
}

/* _straight_draw */
static int straight_draw(const int c[13]) {
    int n = 0, mx = 0, lo = 13, hi = -1;
    for (int k = 0; k < 13; k++) {
        n += c[k];
        if (c[k] > mx) mx = c[k];
        if (c[k]) {
            if (k < lo) lo = k;
            if (k > hi) hi = k;
        }
    }
    if (n == 0 || mx > 1) return 0;
    int span = hi - lo;
    if (c[12]) { /* the ace also plays low: span from -1 to the highest other rank */
        int other = -1;
        for (int k = 0; k < 12; k++)
            if (c[k]) other = k;
        if (other + 1 < span) span = other + 1;
    }
    return span <= 4 ? n : 0;
}

/* _row_features (the order of engine.ai.ROW_FEATURES) */
static int row_features(int r, const int c[13], int flush, int32_t lb, double *out) {
    int n = 0, high = -1, mx = 0;
    for (int k = 0; k < 13; k++) {
        n += c[k];
        if (c[k]) high = k;
        if (c[k] > mx) mx = c[k];
    }
    int free_slots = FULL[r] - n;
    int category = lb >> CATEGORY_SHIFT;
    if (r == 0) {
        int single = -1, pair = -1;
        for (int k = 0; k < 13; k++) {
            if (c[k] == 1) single = k;
            if (c[k] >= 2) pair = k;
        }
        int trips = mx >= 3;
        int open = free_slots > 0 && pair < 0;
        int i = 0;
        out[i++] = open && single == 10;
        out[i++] = open && single == 11;
        out[i++] = open && single == 12;
        out[i++] = free_slots;
        out[i++] = category >= PAIR;
        for (int k = 4; k < 13; k++) out[i++] = pair == k && !trips;
        out[i++] = trips;
        out[i++] = (double)(high + 1) / 13.0;
        out[i++] = (double)(free_slots * free_slots);
        return i;
    }
    int i = 0;
    out[i++] = free_slots;
    out[i++] = flush && free_slots > 0 ? (double)n : 0.0;
    out[i++] = category == PAIR;
    out[i++] = category == 2;
    out[i++] = category >= TRIPS;
    out[i++] = free_slots == 0;
    out[i++] = free_slots > 0 ? (double)straight_draw(c) : 0.0;
    out[i++] = mx;
    out[i++] = (double)(free_slots * free_slots);
    out[i++] = (double)(high + 1) / 13.0;
    return i;
}

static inline int royalty_of(const Ctx *x, int r, int32_t v) {
    if (!x->royal) return 0;
    return r == 0 ? top_royalty(v) : r == 1 ? middle_royalty(v) : bottom_royalty(v);
}

/* _Model.worth: royalty + expected row points against a typical row (+ fantasyland on top) */
static double worth(const Ctx *x, int r, int32_t v) {
    const int32_t *table = x->core->tables[r];
    int n = x->core->ntable[r];
    long below = (long)bisect_left32(table, n, v), above = n - (long)bisect_right32(table, n, v);
    double eq = (double)(below - above) / (double)n;
    double w = (double)royalty_of(x, r, v) + x->equity_weight * eq;
    if (r == 0) {
        int flc = fl_cards(x, v);
        w += flc > 0 ? x->fl_value[flc < 32 ? flc : 31] : 0.0;
    }
    return w;
}

/* A new live row for state s of row r: the id, or -1. */
static long live_row(Ctx *x, int r, uint64_t s) {
    RowTable *t = &x->own;
    uint64_t base = x->base[r];
    int c[13];
    rank_counts(s >> 28, c);
    int n = 0;
    for (int k = 0; k < 13; k++) n += c[k];
    int size = FULL[r];
    int complete = n >= size;
    int32_t v = complete ? value_of(s) : 0;
    int flush = 0; /* 0: none, 1-4: that suit + 1, 5: any (an empty five-card row) */
    if (!complete && size == 5) {
        uint64_t sp = s & ((1ULL << 28) - 1);
        if (n == 0) flush = 5;
        else
            for (int k = 0; k < 4; k++)
                if (sp == ((uint64_t)(13 * n) << (7 * k))) flush = k + 1;
    }
    uint64_t dkey = (s - base) >> 28; /* the ranks the rollout dealt to this row */
    uint64_t k1 = complete ? (1ULL << 40 | (uint64_t)r << 36)
                           : ((s >> 28) | (uint64_t)flush << 32 | (uint64_t)r << 36);
    uint64_t k2 = complete ? (uint64_t)(uint32_t)v : dkey;
    Val *hit = map_get(&t->abs, k1, k2);
    long id;
    if (hit) {
        id = hit->a;
    } else {
        id = t->next_id++;
        if (tab_reserve(t, (size_t)id) < 0) return -1;
        RowRec *rec = &t->recs[id];
        int free_slots = size - n;
        int nd = complete ? 1 : x->samples;
        int32_t *dist = (int32_t *)malloc((size_t)nd * sizeof(int32_t));
        double *parts = (double *)calloc((size_t)(x->core->nstages ? x->core->nstages : 1) * 5,
                                         sizeof(double));
        if (!dist || !parts) {
            free(dist);
            free(parts);
            PyErr_NoMemory();
            return -1;
        }
        if (complete) {
            dist[0] = v;
        } else {
            /* the fill pool: unseen cards less the row's cards the rollout dealt */
            uint64_t pool[64];
            int m = x->live_n;
            memcpy(pool, x->live_pool, (size_t)m * sizeof(uint64_t));
            int d[13];
            rank_counts(dkey, d);
            for (int rank = 0; rank < 13; rank++) {
                for (int left = d[rank]; left > 0; left--) {
                    for (int i = 0; i < m; i++) {
                        if (card_rank(pool[i]) == rank &&
                            (flush < 1 || flush > 4 || card_suit(pool[i]) == flush - 1)) {
                            pool[i] = pool[--m];
                            break;
                        }
                    }
                }
            }
            if (m < free_slots) { /* cannot happen in a real hand; keep going sensibly */
                m = x->live_n;
                memcpy(pool, x->live_pool, (size_t)m * sizeof(uint64_t));
            }
            Rng rng;
            rng_seed(&rng, x->live_seed ^ mix64(k1 * 0x9e3779b97f4a7c15ULL + k2));
            for (int i = 0; i < nd; i++) {
                uint64_t sum = s;
                for (int j = 0; j < free_slots; j++) {
                    int pick = j + (int)rng_below(&rng, (uint32_t)(m - j));
                    uint64_t tmp = pool[j];
                    pool[j] = pool[pick];
                    pool[pick] = tmp;
                    sum += pool[j];
                }
                dist[i] = value_of(sum);
            }
            qsort(dist, (size_t)nd, sizeof(int32_t), cmp32);
        }
        double mean = 0.0;
        for (int i = 0; i < nd; i++) mean += worth(x, r, dist[i]);
        mean = mean / (double)nd;
        int32_t lb = complete ? v : made_value(c);
        double e[MAX_FEATS];
        e[0] = mean;
        int nf = row_features(r, c, flush != 0, lb, e + 1);
        rec_fill(x->core, rec, r, free_slots, mean, dist, nd, e, nf, parts);
        Val nv = {0.0, (int32_t)id, 0};
        if (map_put(&t->abs, k1, k2, nv) < 0) return -1;
    }
    Val nv = {0.0, (int32_t)id, 0};
    if (map_put(&t->rows[r], s, base, nv) < 0) return -1;
    return id;
}

static inline long ctx_row(Ctx *x, int r, uint64_t s) {
    if (!x->live) return core_row(x->core, r, s);
    Val *v = map_get(&x->own.rows[r], s, x->base[r]);
    if (v) return v->a;
    return live_row(x, r, s);
}

static inline double ctx_qi(Ctx *x, long a, long b, long d) {
    return core_qi(x->core, x->tab, a, b, d);
}

/* One street's choice: card `p` to row `i`, card `q` to row `j` (ofc: one card, to row `i`),
 * and the value the rollout policy gives the board it leads to. */
typedef struct {
    double v;
    int p, i, q, j;
    long ni, nj; /* the new abstract rows of rows i and j */
} Choice;

#define MAX_MOVES 64 /* pineapple moves of a street: at most 3 pairs x 9 placements */

/* The greedy ofc choice for one card (rows a, b, c are the current abstract rows); 0 or -1. */
static int choose_single(Ctx *x, const uint64_t s[3], const int f[3], const long ids[3],
                         uint64_t card, Choice *out) {
    double best = -1e18, v;
    int choice = -1;
    long n[3] = {0, 0, 0};
    if (f[0]) {
        n[0] = ctx_row(x, 0, s[0] + card);
        if (n[0] < 0) return -1;
        best = ctx_qi(x, n[0], ids[1], ids[2]);
        choice = 0;
    }
    if (f[1]) {
        n[1] = ctx_row(x, 1, s[1] + card);
        if (n[1] < 0) return -1;
        v = ctx_qi(x, ids[0], n[1], ids[2]);
        if (v > best || choice < 0) { best = v; choice = 1; }
    }
    if (f[2]) {
        n[2] = ctx_row(x, 2, s[2] + card);
        if (n[2] < 0) return -1;
        v = ctx_qi(x, ids[0], ids[1], n[2]);
        if (v > best || choice < 0) { best = v; choice = 2; }
    }
    out->v = best;
    out->p = 0;
    out->i = choice;
    out->q = -1;
    out->j = -1;
    out->ni = n[choice];
    out->nj = 0;
    return 0;
}

static int enum_pineapple(Ctx *x, const uint64_t s[3], const int f[3], const uint64_t cards[3],
                          Choice *out);

/* The greedy pineapple choice: two of three cards to rows with free slots (the board is not
 * finished by it: more than two free slots), the first of the best by the value; 0 or -1. */
static int choose_pineapple(Ctx *x, const uint64_t s[3], const int f[3], const uint64_t cards[3],
                            Choice *out) {
    Choice moves[MAX_MOVES];
    int n = enum_pineapple(x, s, f, cards, moves);
    if (n <= 0) return -1;
    int best = 0;
    for (int k = 1; k < n; k++)
        if (moves[k].v > moves[best].v) best = k;
    *out = moves[best];
    return 0;
}

/* The last pineapple street: two of three cards fill the board; the best exact score. */
static Final finish_pineapple(Ctx *x, const uint64_t s[3], const int f[3], const uint64_t cards[3]) {
    int rows[2], nr = 0;
    for (int i = 0; i < f[0] && nr < 2; i++) rows[nr++] = 0;
    for (int i = 0; i < f[1] && nr < 2; i++) rows[nr++] = 1;
    for (int i = 0; i < f[2] && nr < 2; i++) rows[nr++] = 2;
    Final best_out = {0.0, 0, 0, 0};
    int have = 0;
    static const int pairs[3][2] = {{0, 1}, {0, 2}, {1, 2}};
    for (int pi = 0; pi < 3; pi++) {
        uint64_t a = cards[pairs[pi][0]], b = cards[pairs[pi][1]];
        int orders = rows[0] != rows[1] ? 2 : 1;
        for (int o = 0; o < orders; o++) {
            uint64_t c = o ? b : a, d = o ? a : b;
            uint64_t t3[3] = {s[0], s[1], s[2]};
            t3[rows[0]] += c;
            t3[rows[1]] += d;
            Final out = ctx_final_sums(x, t3[0], t3[1], t3[2]);
            if (!have || out.v > best_out.v) {
                best_out = out;
                have = 1;
            }
        }
    }
    return best_out;
}

/* The last ofc card goes to the one free slot. */
static Final finish_single(Ctx *x, const uint64_t s[3], const int f[3], uint64_t card) {
    uint64_t t3[3] = {s[0], s[1], s[2]};
    t3[f[0] ? 0 : f[1] ? 1 : 2] += card;
    return ctx_final_sums(x, t3[0], t3[1], t3[2]);
}

static const Final BAD = {0.0, 0, 0, 0};
#define MAX_DRAWS_SINGLE 64

typedef struct {
    unsigned long long s[3];
    int f[3];
} After;

static double street_value(Ctx *x, const After *a, const uint64_t *cards, int pineapple);

/* ofc with the lookahead: each row the card may go to is judged by what the policy makes of
 * the next card, averaged over `la_draws` cards drawn from pool[dealt..npool) (the same cards
 * for every row; every such card when there are no more of them than draws). */
static int choose_single_lookahead(Ctx *x, const uint64_t s[3], const int f[3], uint64_t card,
                                   const uint64_t *pool, int dealt, int npool, Choice *out) {
    int avail = npool - dealt;
    int draws = x->la_draws < avail ? x->la_draws : avail;
    uint64_t next[MAX_DRAWS_SINGLE];
    if (draws > MAX_DRAWS_SINGLE) draws = MAX_DRAWS_SINGLE;
    if (draws == avail) {
        for (int d = 0; d < draws; d++) next[d] = pool[dealt + d];
    } else {
        /* a partial shuffle of the indices [0, avail) */
        int idx[64];
        for (int d = 0; d < avail; d++) idx[d] = d;
        for (int d = 0; d < draws; d++) {
            int j = d + (int)rng_below(&x->la_rng, (uint32_t)(avail - d));
            int t = idx[d];
            idx[d] = idx[j];
            idx[j] = t;
            next[d] = pool[dealt + idx[d]];
        }
    }
    double best = -1e18;
    int chosen = -1;
    for (int r = 0; r < 3; r++) {
        if (!f[r]) continue;
        After a = {{s[0], s[1], s[2]}, {f[0], f[1], f[2]}};
        a.s[r] += card;
        a.f[r]--;
        double total = 0.0;
        for (int d = 0; d < draws; d++) total += street_value(x, &a, &next[d], 0);
        if (x->error) return -1;
        if (chosen < 0 || total > best) {
            best = total;
            chosen = r;
        }
    }
    out->v = best;
    out->p = 0;
    out->i = chosen;
    out->q = out->j = -1;
    out->ni = ctx_row(x, chosen, s[chosen] + card);
    out->nj = 0;
    return out->ni < 0 ? -1 : 0;
}

/* _Context.rollout_single: ofc, one card a street (with the lookahead when it is on; `future`
 * is then the rollout's whole pool of npool cards, dealt from the front) */
static Final rollout_single(Ctx *x, const uint64_t s_in[3], const int f_in[3],
                            const uint64_t *future, int npool) {
    uint64_t s[3] = {s_in[0], s_in[1], s_in[2]};
    int f[3] = {f_in[0], f_in[1], f_in[2]};
    long ids[3];
    for (int r = 0; r < 3; r++) {
        ids[r] = ctx_row(x, r, s[r]);
        if (ids[r] < 0) { x->error = 1; return BAD; }
    }
    int k = 0;
    while (f[0] + f[1] + f[2] > 1) {
        uint64_t card = future[k++];
        Choice ch;
        int rc;
        if (x->la_draws > 0 && f[0] + f[1] + f[2] <= x->la_free)
            rc = choose_single_lookahead(x, s, f, card, future, k, npool, &ch);
        else
            rc = choose_single(x, s, f, ids, card, &ch);
        if (rc < 0) { x->error = 1; return BAD; }
        s[ch.i] += card;
        f[ch.i]--;
        ids[ch.i] = ch.ni;
    }
    if (f[0] + f[1] + f[2] == 1) return finish_single(x, s, f, future[k]);
    return ctx_final_sums(x, s[0], s[1], s[2]);
}

#define MAX_DRAWS 64

/* Every pineapple move of a street (not finishing the board) with the value of the board it
 * leads to, in a fixed order (choose_pineapple takes the first best); the count, or -1. */
static int enum_pineapple(Ctx *x, const uint64_t s[3], const int f[3], const uint64_t cards[3],
                          Choice *out) {
    long base[3];
    for (int r = 0; r < 3; r++) {
        base[r] = ctx_row(x, r, s[r]);
        if (base[r] < 0) return -1;
    }
    int free1[3], n1 = 0, free2[3], n2 = 0, n = 0;
    for (int r = 0; r < 3; r++) {
        if (f[r]) free1[n1++] = r;
        if (f[r] >= 2) free2[n2++] = r;
    }
    long one[3][3];
    for (int ci = 0; ci < 3; ci++)
        for (int t = 0; t < n1; t++) {
            int r = free1[t];
            one[ci][r] = ctx_row(x, r, s[r] + cards[ci]);
            if (one[ci][r] < 0) return -1;
        }
    static const int pairs[3][2] = {{0, 1}, {0, 2}, {1, 2}};
    for (int pi = 0; pi < 3; pi++) {
        int p = pairs[pi][0], q = pairs[pi][1];
        for (int t = 0; t < n2; t++) {
            int r = free2[t];
            long info = ctx_row(x, r, s[r] + cards[p] + cards[q]);
            if (info < 0) return -1;
            long rows3[3] = {base[0], base[1], base[2]};
            rows3[r] = info;
            Choice c = {ctx_qi(x, rows3[0], rows3[1], rows3[2]), p, r, q, r, info, info};
            out[n++] = c;
        }
        for (int ti = 0; ti < n1; ti++)
            for (int tj = 0; tj < n1; tj++) {
                int i = free1[ti], j = free1[tj];
                if (i == j) continue;
                long rows3[3] = {base[0], base[1], base[2]};
                rows3[i] = one[p][i];
                rows3[j] = one[q][j];
                Choice c = {ctx_qi(x, rows3[0], rows3[1], rows3[2]), p, i, q, j, one[p][i],
                            one[q][j]};
                out[n++] = c;
            }
    }
    return n;
}

/* The lookahead choice: the best `la_moves` moves by the value, each judged by what the policy
 * makes of the next street, averaged over `la_draws` sampled streets (the same for every move)
 * from the cards the rollout has not dealt yet (pool[dealt..npool)). */
static int choose_lookahead(Ctx *x, const uint64_t s[3], const int f[3], const uint64_t cards[3],
                            const uint64_t *pool, int dealt, int npool, Choice *out) {
    Choice moves[MAX_MOVES];
    int n = enum_pineapple(x, s, f, cards, moves);
    if (n < 0) return -1;
    int m = x->la_moves < n ? x->la_moves : n;
    /* the best m by value, first in move order on ties (a stable partial selection) */
    for (int a = 0; a < m; a++) {
        int best = a;
        for (int b = a + 1; b < n; b++)
            if (moves[b].v > moves[best].v) best = b;
        if (best != a) {
            Choice t = moves[best];
            memmove(&moves[a + 1], &moves[a], (size_t)(best - a) * sizeof(Choice));
            moves[a] = t;
        }
    }
    int avail = npool - dealt, draws = x->la_draws < MAX_DRAWS ? x->la_draws : MAX_DRAWS;
    if (avail < 3) draws = 0;
    uint64_t streets[MAX_DRAWS][3];
    for (int d = 0; d < draws; d++) {
        uint32_t a = rng_below(&x->la_rng, (uint32_t)avail), b, c;
        do b = rng_below(&x->la_rng, (uint32_t)avail); while (b == a);
        do c = rng_below(&x->la_rng, (uint32_t)avail); while (c == a || c == b);
        streets[d][0] = pool[dealt + (int)a];
        streets[d][1] = pool[dealt + (int)b];
        streets[d][2] = pool[dealt + (int)c];
    }
    int chosen = 0;
    double best = -1e18;
    for (int k = 0; k < m && draws > 0; k++) {
        Choice *mv = &moves[k];
        After a = {{s[0], s[1], s[2]}, {f[0], f[1], f[2]}};
        a.s[mv->i] += cards[mv->p];
        a.f[mv->i]--;
        a.s[mv->j] += cards[mv->q];
        a.f[mv->j]--;
        double total = 0.0;
        for (int d = 0; d < draws; d++) total += street_value(x, &a, streets[d], 1);
        if (x->error) return -1;
        if (total > best) {
            best = total;
            chosen = k;
        }
    }
    out->v = moves[chosen].v;
    out->p = moves[chosen].p;
    out->i = moves[chosen].i;
    out->q = moves[chosen].q;
    out->j = moves[chosen].j;
    return 0;
}

/* _Context.rollout_pineapple: three cards a street, two kept (with the lookahead when it is on;
 * `future` is then the rollout's whole pool of npool cards, dealt from the front) */
static Final rollout_pineapple(Ctx *x, const uint64_t s_in[3], const int f_in[3],
                               const uint64_t *future, int npool) {
    uint64_t s[3] = {s_in[0], s_in[1], s_in[2]};
    int f[3] = {f_in[0], f_in[1], f_in[2]};
    int k = 0;
    while (f[0] + f[1] + f[2] > 2) {
        const uint64_t *cards = future + k;
        k += 3;
        Choice ch;
        int rc;
        if (x->la_draws > 0 && f[0] + f[1] + f[2] <= x->la_free)
            rc = choose_lookahead(x, s, f, cards, future, k, npool, &ch);
        else
            rc = choose_pineapple(x, s, f, cards, &ch);
        if (rc < 0) { x->error = 1; return BAD; }
        s[ch.i] += cards[ch.p];
        f[ch.i]--;
        s[ch.j] += cards[ch.q];
        f[ch.j]--;
    }
    return finish_pineapple(x, s, f, future + k);
}


static void ctx_dealloc(Ctx *x) {
    Py_XDECREF((PyObject *)x->core);
    map_free(&x->memo);
    tab_free(&x->own);
    Py_TYPE(x)->tp_free((PyObject *)x);
}

/* Ctx(core, opponents, royal, has_fl, ofc, progressive, fl_values, moon, moon_points, scoop,
 *     overall, foul_value, loss, strict)
 *   opponents: sequence of (q, (exact x3, -1 for none), (lower x3)) */
static int ctx_init(Ctx *x, PyObject *args, PyObject *kw) {
    PyObject *core, *opps, *flv;
    int royal, has_fl, ofc, progressive, moon, strict;
    double moon_points, scoop, overall, foul_value, loss;
    PyObject *live_unseen = Py_None;
    int samples = 40;
    unsigned long long live_seed = 0;
    double equity_weight = 1.0;
    static char *names[] = {"core", "opponents", "royal", "has_fl", "ofc", "progressive",
                            "fl_values", "moon", "moon_points", "scoop", "overall",
                            "foul_value", "loss", "strict", "live_unseen", "samples",
                            "live_seed", "equity_weight", NULL};
    if (!PyArg_ParseTupleAndKeywords(args, kw, "O!OppppOpdddddp|OiKd", names, &CoreType, &core,
                                     &opps, &royal, &has_fl, &ofc, &progressive, &flv, &moon,
                                     &moon_points, &scoop, &overall, &foul_value, &loss, &strict,
                                     &live_unseen, &samples, &live_seed, &equity_weight))
        return -1;
    if (samples < 1 || samples > MAX_DIST) {
        PyErr_SetString(PyExc_ValueError, "samples: 1-4096");
        return -1;
    }
    Py_INCREF(core);
    Py_XSETREF(x->core, (Core *)core);
    PyObject *seq = PySequence_Fast(opps, "opponents must be a sequence");
    if (!seq) return -1;
    Py_ssize_t n = PySequence_Fast_GET_SIZE(seq);
    if (n > MAX_OPP) {
        Py_DECREF(seq);
        PyErr_SetString(PyExc_ValueError, "at most 3 opponents");
        return -1;
    }
    x->nopp = (int)n;
    for (Py_ssize_t i = 0; i < n; i++) {
        Opp *o = &x->opp[i];
        PyObject *item = PySequence_Fast_GET_ITEM(seq, i);
        if (!PyTuple_Check(item)) {
            Py_DECREF(seq);
            PyErr_SetString(PyExc_TypeError, "an opponent is a tuple (q, exact, lower)");
            return -1;
        }
        if (!PyArg_ParseTuple(item, "d(iii)(iii)", &o->q, &o->exact[0],
                              &o->exact[1], &o->exact[2], &o->lower[0], &o->lower[1],
                              &o->lower[2])) {
            Py_DECREF(seq);
            return -1;
        }
    }
    Py_DECREF(seq);
    PyObject *fs = PySequence_Fast(flv, "fl_values must be a sequence");
    if (!fs) return -1;
    Py_ssize_t nf = PySequence_Fast_GET_SIZE(fs);
    for (int i = 0; i < 32; i++) {
        x->fl_value[i] = i < nf ? PyFloat_AsDouble(PySequence_Fast_GET_ITEM(fs, i)) : 0.0;
    }
    Py_DECREF(fs);
    if (PyErr_Occurred()) return -1;
    x->royal = royal;
    x->has_fl = has_fl;
    x->ofc = ofc;
    x->progressive = progressive;
    x->moon = moon;
    x->moon_points = moon_points;
    x->scoop = scoop;
    x->overall = overall;
    x->foul_value = foul_value;
    x->loss = loss;
    x->strict = strict;
    x->error = 0;
    if (!x->memo.k1 && map_init(&x->memo, 1 << 12) < 0) return -1;
    x->samples = samples;
    x->live_seed = live_seed;
    x->equity_weight = equity_weight;
    x->base[0] = x->base[1] = x->base[2] = 0;
    x->tab = &x->core->tab;
    x->live = 0;
    if (live_unseen != Py_None) {
        if (read_cards(live_unseen, x->live_pool, 64, &x->live_n) < 0) return -1;
        if (tab_init(&x->own, 1 << 12) < 0) return -1;
        x->live = 1;
        x->tab = &x->own;
    }
    return 0;
}

static int read_after(PyObject *o, After *a) {
    if (!PyTuple_Check(o)) {
        PyErr_SetString(PyExc_TypeError, "an after is a tuple (s0, s1, s2, f0, f1, f2)");
        return -1;
    }
    return PyArg_ParseTuple(o, "KKKiii", &a->s[0], &a->s[1], &a->s[2], &a->f[0], &a->f[1],
                            &a->f[2]) ? 0 : -1;
}

static PyObject *final_tuple(Final f) {
    return Py_BuildValue("(diii)", f.v, f.foul, f.roy, f.flc);
}

static PyObject *ctx_final_py(Ctx *x, PyObject *args) {
    int vt, vm, vb;
    if (!PyArg_ParseTuple(args, "iii", &vt, &vm, &vb)) return NULL;
    Final f = ctx_final(x, vt, vm, vb);
    if (x->error) {
        x->error = 0;
        if (!PyErr_Occurred()) PyErr_NoMemory();
        return NULL;
    }
    return final_tuple(f);
}

static Final ctx_roll(Ctx *x, const After *a, const uint64_t *future, int npool, int pineapple) {
    uint64_t s[3] = {a->s[0], a->s[1], a->s[2]};
    x->base[0] = s[0];
    x->base[1] = s[1];
    x->base[2] = s[2];
    if (pineapple) return rollout_pineapple(x, s, a->f, future, npool);
    return rollout_single(x, s, a->f, future, npool);
}

/* What the rollout policy makes of one more street from a board: the best move's value (the
 * exact score when the move finishes the board, else the policy's value of the board). */
static double street_value(Ctx *x, const After *a, const uint64_t *cards, int pineapple) {
    uint64_t s[3] = {a->s[0], a->s[1], a->s[2]};
    const int *f = a->f;
    int free_slots = f[0] + f[1] + f[2];
    Choice ch;
    if (pineapple) {
        if (free_slots <= 2) return finish_pineapple(x, s, f, cards).v;
        if (choose_pineapple(x, s, f, cards, &ch) < 0) { x->error = 1; return 0.0; }
        return ch.v;
    }
    if (free_slots <= 1) return finish_single(x, s, f, cards[0]).v;
    long ids[3];
    for (int r = 0; r < 3; r++) {
        ids[r] = ctx_row(x, r, s[r]);
        if (ids[r] < 0) { x->error = 1; return 0.0; }
    }
    if (choose_single(x, s, f, ids, cards[0], &ch) < 0) { x->error = 1; return 0.0; }
    return ch.v;
}

/* street_value from a candidate's own position (its rows are the live rows' base) */
static double street_value_at(Ctx *x, const After *a, const uint64_t *cards, int pineapple) {
    x->base[0] = a->s[0];
    x->base[1] = a->s[1];
    x->base[2] = a->s[2];
    return street_value(x, a, cards, pineapple);
}

static int ctx_rows3(Ctx *x, PyObject *args, long ids[3]) {
    unsigned long long s0, s1, s2;
    if (!PyArg_ParseTuple(args, "KKK", &s0, &s1, &s2)) return -1;
    x->base[0] = s0;
    x->base[1] = s1;
    x->base[2] = s2;
    ids[0] = ctx_row(x, 0, s0);
    if (ids[0] < 0) return -1;
    ids[1] = ctx_row(x, 1, s1);
    if (ids[1] < 0) return -1;
    ids[2] = ctx_row(x, 2, s2);
    return ids[2] < 0 ? -1 : 0;
}

/* row(r, s, base=s) -> (free, mean, dist, feats): what the rows in use make of row r in state s
 * (live rows: `base` is the part of s that the seat has seen; the rest the rollout dealt) */
static PyObject *ctx_row_py(Ctx *x, PyObject *args) {
    int r;
    unsigned long long s, base = ~0ULL;
    if (!PyArg_ParseTuple(args, "iK|K", &r, &s, &base)) return NULL;
    if (r < 0 || r > 2) {
        PyErr_SetString(PyExc_ValueError, "row 0, 1 or 2");
        return NULL;
    }
    x->base[r] = base == ~0ULL ? s : base;
    long id = ctx_row(x, r, s);
    if (id < 0) return NULL;
    const RowRec *rec = &x->tab->recs[id];
    PyObject *dist = PyTuple_New(rec->ndist), *feats = PyTuple_New(rec->nfeats);
    if (!dist || !feats) {
        Py_XDECREF(dist);
        Py_XDECREF(feats);
        return NULL;
    }
    for (int i = 0; i < rec->ndist; i++) PyTuple_SET_ITEM(dist, i, PyLong_FromLong(rec->dist[i]));
    for (int i = 0; i < rec->nfeats; i++) PyTuple_SET_ITEM(feats, i, PyFloat_FromDouble(rec->feats[i]));
    return Py_BuildValue("(idNN)", rec->free, rec->mean, dist, feats);
}

/* q(s0, s1, s2): the policy's value of a board at the decision (the seat's own cards) */
static PyObject *ctx_q_py(Ctx *x, PyObject *args) {
    long ids[3];
    if (ctx_rows3(x, args, ids) < 0) return NULL;
    return PyFloat_FromDouble(ctx_qi(x, ids[0], ids[1], ids[2]));
}

/* features(s0, s1, s2) -> (stage, base features): engine.ai._Model.features of these rows */
static PyObject *ctx_features_py(Ctx *x, PyObject *args) {
    long ids[3];
    if (ctx_rows3(x, args, ids) < 0) return NULL;
    RowTable *t = x->tab;
    double p1 = core_ptm(x->core, t, ids[0], ids[1]);
    double p2 = core_pmb(t, ids[1], ids[2]);
    double p = p1 + p2;
    if (p > 1.0) p = 1.0;
    RowRec *a = &t->recs[ids[0]], *b = &t->recs[ids[1]], *c = &t->recs[ids[2]];
    double q = (1.0 - p) * ((a->mean + b->mean) + c->mean) - p * x->core->loss;
    int n = 12 + a->nfeats + b->nfeats + c->nfeats;
    PyObject *out = PyList_New(n);
    if (!out) return NULL;
    double head[12] = {1.0, q, (1.0 - p) * a->mean, (1.0 - p) * b->mean, (1.0 - p) * c->mean,
                       p, p * p, p1, p2, a->mean, b->mean, c->mean};
    int i = 0;
    for (int k = 0; k < 12; k++) PyList_SET_ITEM(out, i++, PyFloat_FromDouble(head[k]));
    const RowRec *rows[3] = {a, b, c};
    for (int r = 0; r < 3; r++)
        for (int k = 0; k < rows[r]->nfeats; k++)
            PyList_SET_ITEM(out, i++, PyFloat_FromDouble(rows[r]->feats[k]));
    return Py_BuildValue("(iN)", a->free + b->free + c->free, out);
}

/* rollout(after, future, pineapple) -> (value, fouled, royalties, fantasyland cards) */
static PyObject *ctx_rollout_py(Ctx *x, PyObject *args) {
    PyObject *after, *future;
    int pineapple;
    if (!PyArg_ParseTuple(args, "OOp", &after, &future, &pineapple)) return NULL;
    After a;
    if (read_after(after, &a) < 0) return NULL;
    uint64_t cards[64];
    int n;
    if (read_cards(future, cards, 64, &n) < 0) return NULL;
    int need = a.f[0] + a.f[1] + a.f[2];
    if (pineapple) need = need / 2 * 3;
    if (n < need) {
        PyErr_SetString(PyExc_ValueError, "the future is too short for the free slots");
        return NULL;
    }
    Final f = ctx_roll(x, &a, cards, n, pineapple);
    if (x->error) {
        x->error = 0;
        if (!PyErr_Occurred()) PyErr_NoMemory();
        return NULL;
    }
    return final_tuple(f);
}

static double now_seconds(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* simulate(afters, unseen, need, rounds, seed, pineapple, budget=0.0, min_rounds=0)
 *   Plays every candidate (after) on `rounds` sampled futures (the same future for all of them
 *   in a round), or fewer when `budget` seconds (> 0) would be passed by another round once
 *   `min_rounds` are done.  Returns (rounds done, values per candidate (lists), fouls,
 *   royalties, fantasylands (per candidate totals)). */
static PyObject *ctx_simulate_py(Ctx *x, PyObject *args) {
    PyObject *afters_obj, *unseen_obj;
    int need, rounds, pineapple, min_rounds = 0;
    unsigned long long seed;
    double budget = 0.0;
    if (!PyArg_ParseTuple(args, "OOiiKp|di", &afters_obj, &unseen_obj, &need, &rounds, &seed,
                          &pineapple, &budget, &min_rounds))
        return NULL;
    uint64_t pool[64], future[64];
    int npool;
    if (read_cards(unseen_obj, pool, 64, &npool) < 0) return NULL;
    if (need > npool || need < 0) {
        PyErr_SetString(PyExc_ValueError, "need more cards than are unseen");
        return NULL;
    }
    PyObject *seq = PySequence_Fast(afters_obj, "afters must be a sequence");
    if (!seq) return NULL;
    Py_ssize_t n = PySequence_Fast_GET_SIZE(seq);
    After *afters = (After *)malloc((size_t)(n ? n : 1) * sizeof(After));
    double *vals = (double *)malloc((size_t)(n ? n : 1) * (size_t)(rounds > 0 ? rounds : 1) * sizeof(double));
    long *fouls = (long *)calloc((size_t)(n ? n : 1), sizeof(long));
    long *roys = (long *)calloc((size_t)(n ? n : 1), sizeof(long));
    long *fls = (long *)calloc((size_t)(n ? n : 1), sizeof(long));
    PyObject *result = NULL;
    if (!afters || !vals || !fouls || !roys || !fls) {
        PyErr_NoMemory();
        goto done;
    }
    for (Py_ssize_t i = 0; i < n; i++) {
        if (read_after(PySequence_Fast_GET_ITEM(seq, i), &afters[i]) < 0) goto done;
        int free_slots = afters[i].f[0] + afters[i].f[1] + afters[i].f[2];
        int want = pineapple ? free_slots / 2 * 3 : free_slots;
        if (want > need) {
            PyErr_SetString(PyExc_ValueError, "need is too small for a candidate's free slots");
            goto done;
        }
    }
    Rng rng;
    rng_seed(&rng, seed);
    rng_seed(&x->la_rng, seed ^ 0x5bd1e9955bd1e995ULL);
    double start = now_seconds(), last = start;
    int done_rounds = 0;
    for (int round = 0; round < rounds; round++) {
        if (budget > 0.0 && round >= min_rounds && round > 0) {
            double t = now_seconds();
            if ((t - start) + (t - last) >= budget) break;
            last = t;
        } else if (budget > 0.0) {
            last = now_seconds();
        }
        rng_sample(&rng, pool, npool, need, future);
        for (Py_ssize_t i = 0; i < n; i++) {
            Final f = ctx_roll(x, &afters[i], pool, npool, pineapple);
            if (x->error) {
                x->error = 0;
                if (!PyErr_Occurred()) PyErr_NoMemory();
                goto done;
            }
            vals[i * rounds + round] = f.v;
            fouls[i] += f.foul;
            roys[i] += f.roy;
            fls[i] += f.flc > 0;
        }
        done_rounds++;
    }
    {
        PyObject *vlist = PyList_New(n), *fl = PyList_New(n), *rl = PyList_New(n),
                 *ll = PyList_New(n);
        if (!vlist || !fl || !rl || !ll) {
            Py_XDECREF(vlist);
            Py_XDECREF(fl);
            Py_XDECREF(rl);
            Py_XDECREF(ll);
            goto done;
        }
        for (Py_ssize_t i = 0; i < n; i++) {
            PyObject *one = PyList_New(done_rounds);
            if (!one) {
                Py_DECREF(vlist);
                Py_DECREF(fl);
                Py_DECREF(rl);
                Py_DECREF(ll);
                goto done;
            }
            for (int r = 0; r < done_rounds; r++)
                PyList_SET_ITEM(one, r, PyFloat_FromDouble(vals[i * rounds + r]));
            PyList_SET_ITEM(vlist, i, one);
            PyList_SET_ITEM(fl, i, PyLong_FromLong(fouls[i]));
            PyList_SET_ITEM(rl, i, PyLong_FromLong(roys[i]));
            PyList_SET_ITEM(ll, i, PyLong_FromLong(fls[i]));
        }
        result = Py_BuildValue("(iNNNN)", done_rounds, vlist, fl, rl, ll);
    }
done:
    Py_DECREF(seq);
    free(afters);
    free(vals);
    free(fouls);
    free(roys);
    free(fls);
    return result;
}

/* lookahead(afters, unseen, draws, seed, pineapple) -> the mean street_value of every
 *   candidate over `draws` sampled next streets (the same for every candidate), or over every
 *   possible next street when draws <= 0. */
static PyObject *ctx_lookahead_py(Ctx *x, PyObject *args) {
    PyObject *afters_obj, *unseen_obj;
    int draws, pineapple;
    unsigned long long seed;
    if (!PyArg_ParseTuple(args, "OOiKp", &afters_obj, &unseen_obj, &draws, &seed, &pineapple))
        return NULL;
    uint64_t pool[64], cards[3];
    int npool;
    if (read_cards(unseen_obj, pool, 64, &npool) < 0) return NULL;
    int street = pineapple ? 3 : 1;
    if (npool < street) {
        PyErr_SetString(PyExc_ValueError, "not enough unseen cards for a street");
        return NULL;
    }
    PyObject *seq = PySequence_Fast(afters_obj, "afters must be a sequence");
    if (!seq) return NULL;
    Py_ssize_t n = PySequence_Fast_GET_SIZE(seq);
    After *afters = (After *)malloc((size_t)(n ? n : 1) * sizeof(After));
    double *sums = (double *)calloc((size_t)(n ? n : 1), sizeof(double));
    PyObject *result = NULL;
    long count = 0;
    if (!afters || !sums) {
        PyErr_NoMemory();
        goto done;
    }
    for (Py_ssize_t i = 0; i < n; i++) {
        if (read_after(PySequence_Fast_GET_ITEM(seq, i), &afters[i]) < 0) goto done;
        int free_slots = afters[i].f[0] + afters[i].f[1] + afters[i].f[2];
        if (free_slots < (pineapple ? 2 : 1)) {
            PyErr_SetString(PyExc_ValueError, "a candidate's board is already complete");
            goto done;
        }
    }
    if (draws > 0) {
        Rng rng;
        rng_seed(&rng, seed);
        for (int d = 0; d < draws; d++) {
            rng_sample(&rng, pool, npool, street, cards);
            for (Py_ssize_t i = 0; i < n; i++) sums[i] += street_value_at(x, &afters[i], cards, pineapple);
            if (x->error) goto failed;
            count++;
        }
    } else if (pineapple) {
        for (int a = 0; a < npool; a++)
            for (int b = a + 1; b < npool; b++)
                for (int c = b + 1; c < npool; c++) {
                    cards[0] = pool[a];
                    cards[1] = pool[b];
                    cards[2] = pool[c];
                    for (Py_ssize_t i = 0; i < n; i++)
                        sums[i] += street_value_at(x, &afters[i], cards, pineapple);
                    if (x->error) goto failed;
                    count++;
                }
    } else {
        for (int a = 0; a < npool; a++) {
            cards[0] = pool[a];
            for (Py_ssize_t i = 0; i < n; i++) sums[i] += street_value_at(x, &afters[i], cards, pineapple);
            if (x->error) goto failed;
            count++;
        }
    }
    result = PyList_New(n);
    if (!result) goto done;
    for (Py_ssize_t i = 0; i < n; i++) PyList_SET_ITEM(result, i, PyFloat_FromDouble(sums[i] / (double)count));
    goto done;
failed:
    x->error = 0;
    if (!PyErr_Occurred()) PyErr_NoMemory();
done:
    Py_DECREF(seq);
    free(afters);
    free(sums);
    return result;
}

/* set_lookahead(draws, moves, free_slots, seed): the rollout policy's lookahead (draws 0: off) */
static PyObject *ctx_set_lookahead_py(Ctx *x, PyObject *args) {
    int draws, moves, free_slots;
    unsigned long long seed = 0;
    if (!PyArg_ParseTuple(args, "iii|K", &draws, &moves, &free_slots, &seed)) return NULL;
    if (draws < 0 || draws > MAX_DRAWS || moves < 1 || moves > MAX_MOVES) {
        PyErr_SetString(PyExc_ValueError, "lookahead: 0-64 draws, 1-64 moves");
        return NULL;
    }
    x->la_draws = draws;
    x->la_moves = moves;
    x->la_free = free_slots;
    rng_seed(&x->la_rng, seed);
    Py_RETURN_NONE;
}

/* selfplay(deck, hands, seed) -> [(value, fouled, royalties, fantasyland cards, cards), ...]
 *   The rollout policy's own pineapple hands from an empty board: 17 cards dealt from `deck`
 *   (seeded), the first street the best of every placement of its 5 cards by the value (the
 *   first best in the order of the placement codes: card k goes to row (code / 3^k) % 3),
 *   then the rollout (greedy, or the lookahead where it is on: its draws come from the cards
 *   of the deck not dealt yet), scored exactly by this decision's `final`.  A measure of the
 *   policy itself (python -m bench.policy); `cards` are the 17 cards in the order dealt. */
static PyObject *ctx_selfplay_py(Ctx *x, PyObject *args) {
    PyObject *deck_obj;
    int hands;
    unsigned long long seed;
    if (!PyArg_ParseTuple(args, "OiK", &deck_obj, &hands, &seed)) return NULL;
    uint64_t deck[64];
    int ndeck;
    if (read_cards(deck_obj, deck, 64, &ndeck) < 0) return NULL;
    if (ndeck < 17 || hands < 0) {
        PyErr_SetString(PyExc_ValueError, "a deck of at least 17 cards and hands >= 0");
        return NULL;
    }
    PyObject *results = PyList_New(0);
    if (!results) return NULL;
    Rng rng;
    rng_seed(&rng, seed);
    for (int h = 0; h < hands; h++) {
        uint64_t pool[64], cards[17];
        memcpy(pool, deck, (size_t)ndeck * sizeof(uint64_t));
        rng_sample(&rng, pool, ndeck, 17, cards);
        double best = -1e18;
        int chosen = -1;
        for (int code = 0; code < 243; code++) {
            int cnt[3] = {0, 0, 0}, c = code;
            uint64_t t3[3] = {0, 0, 0};
            for (int k = 0; k < 5; k++, c /= 3) {
                cnt[c % 3]++;
                t3[c % 3] += cards[k];
            }
            if (cnt[0] > 3) continue;
            long ids[3];
            for (int r = 0; r < 3; r++) {
                x->base[r] = t3[r];
                ids[r] = ctx_row(x, r, t3[r]);
                if (ids[r] < 0) goto fail;
            }
            double v = ctx_qi(x, ids[0], ids[1], ids[2]);
            if (chosen < 0 || v > best) {
                best = v;
                chosen = code;
            }
        }
        After a = {{0, 0, 0}, {3, 5, 5}};
        for (int k = 0, c = chosen; k < 5; k++, c /= 3) {
            a.s[c % 3] += cards[k];
            a.f[c % 3]--;
        }
        /* the rollout deals pool[5..17) first (this hand's streets); its lookahead draws from
         * pool[dealt..ndeck), the cards not dealt yet */
        Final fin = ctx_roll(x, &a, pool + 5, ndeck - 5, 1);
        if (x->error) goto fail;
        PyObject *dealt = PyTuple_New(17);
        if (!dealt) goto fail;
        for (int k = 0; k < 17; k++) {
            PyObject *card = PyLong_FromUnsignedLongLong(cards[k]);
            if (!card) {
                Py_DECREF(dealt);
                goto fail;
            }
            PyTuple_SET_ITEM(dealt, k, card);
        }
        PyObject *t = Py_BuildValue("(diiiN)", fin.v, fin.foul, fin.roy, fin.flc, dealt);
        if (!t || PyList_Append(results, t) < 0) {
            Py_XDECREF(t);
            goto fail;
        }
        Py_DECREF(t);
    }
    return results;
fail:
    Py_DECREF(results);
    x->error = 0;
    if (!PyErr_Occurred()) PyErr_NoMemory();
    return NULL;
}

static PyMethodDef ctx_methods[] = {
    {"row", (PyCFunction)ctx_row_py, METH_VARARGS,
     "row(r, s, base=s) -> (free, mean, dist, feats) of row r in state s"},
    {"q", (PyCFunction)ctx_q_py, METH_VARARGS,
     "q(s0, s1, s2): the policy's value of a board of the seat's own cards"},
    {"features", (PyCFunction)ctx_features_py, METH_VARARGS,
     "features(s0, s1, s2) -> (stage, base features of the learned value)"},
    {"set_lookahead", (PyCFunction)ctx_set_lookahead_py, METH_VARARGS,
     "set_lookahead(draws, moves, free_slots, seed=0): the rollout policy's lookahead"},
    {"lookahead", (PyCFunction)ctx_lookahead_py, METH_VARARGS,
     "lookahead(afters, unseen, draws, seed, pineapple) -> mean best value after one more street"},
    {"final", (PyCFunction)ctx_final_py, METH_VARARGS,
     "final(vt, vm, vb) -> (value, fouled, royalties, fantasyland cards)"},
    {"rollout", (PyCFunction)ctx_rollout_py, METH_VARARGS,
     "rollout(after, future, pineapple) -> (value, fouled, royalties, fantasyland cards)"},
    {"selfplay", (PyCFunction)ctx_selfplay_py, METH_VARARGS,
     "selfplay(deck, hands, seed) -> the rollout policy's own pineapple hands"},
    {"simulate", (PyCFunction)ctx_simulate_py, METH_VARARGS,
     "simulate(afters, unseen, need, rounds, seed, pineapple, budget=0.0, min_rounds=0)"},
    {NULL, NULL, 0, NULL},
};

static PyTypeObject CtxType = {
    PyVarObject_HEAD_INIT(NULL, 0)
    .tp_name = "engine._fastai.Ctx",
    .tp_basicsize = sizeof(Ctx),
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_doc = "One decision of the compiled rollouts.",
    .tp_new = PyType_GenericNew,
    .tp_init = (initproc)ctx_init,
    .tp_dealloc = (destructor)ctx_dealloc,
    .tp_methods = ctx_methods,
};

/* ---------------------------------------------------------------------------------------------
 * module functions
 */

/* load_values(table: dict[int, int], mask: int) */
static PyObject *load_values(PyObject *self, PyObject *args) {
    (void)self;
    PyObject *table;
    unsigned long long mask;
    if (!PyArg_ParseTuple(args, "O!K", &PyDict_Type, &table, &mask)) return NULL;
    Map m;
    size_t cap = 1024;
    while (cap < (size_t)PyDict_Size(table) * 4) cap *= 2;
    if (map_init(&m, cap) < 0) return NULL;
    PyObject *k, *v;
    Py_ssize_t pos = 0;
    while (PyDict_Next(table, &pos, &k, &v)) {
        unsigned long long key = PyLong_AsUnsignedLongLong(k);
        long value = PyLong_AsLong(v);
        if (PyErr_Occurred()) {
            map_free(&m);
            return NULL;
        }
        Val nv = {0.0, (int32_t)value, 0};
        if (map_put(&m, key, 0, nv) < 0) {
            map_free(&m);
            return NULL;
        }
    }
    if (values_loaded) map_free(&VALUES);
    VALUES = m;
    VALUE_MASK = mask;
    values_loaded = 1;
    Py_RETURN_NONE;
}

/* sample(unseen, need, rounds, seed) -> the futures simulate() would play (for tests) */
static PyObject *sample_py(PyObject *self, PyObject *args) {
    (void)self;
    PyObject *unseen_obj;
    int need, rounds;
    unsigned long long seed;
    if (!PyArg_ParseTuple(args, "OiiK", &unseen_obj, &need, &rounds, &seed)) return NULL;
    uint64_t pool[64], future[64];
    int npool;
    if (read_cards(unseen_obj, pool, 64, &npool) < 0) return NULL;
    if (need > npool || need < 0) {
        PyErr_SetString(PyExc_ValueError, "need more cards than are unseen");
        return NULL;
    }
    Rng rng;
    rng_seed(&rng, seed);
    PyObject *out = PyList_New(rounds);
    if (!out) return NULL;
    for (int r = 0; r < rounds; r++) {
        rng_sample(&rng, pool, npool, need, future);
        PyObject *one = PyList_New(need);
        if (!one) {
            Py_DECREF(out);
            return NULL;
        }
        for (int i = 0; i < need; i++) PyList_SET_ITEM(one, i, PyLong_FromUnsignedLongLong(future[i]));
        PyList_SET_ITEM(out, r, one);
    }
    return out;
}

/* ---- the public evaluate (engine.evaluate): a card sum looked up in the evaluator's table */
static PyObject *EVAL_TABLE = NULL;    /* dict: masked card sum -> HandValue */
static PyObject *EVAL_FALLBACK = NULL; /* the Python evaluate: odd input, errors */
static unsigned long long EVAL_MASK = 0;

static PyObject *set_evaluator(PyObject *self, PyObject *args) {
    (void)self;
    PyObject *table, *fallback;
    unsigned long long mask;
    if (!PyArg_ParseTuple(args, "O!KO", &PyDict_Type, &table, &mask, &fallback)) return NULL;
    Py_INCREF(table);
    Py_INCREF(fallback);
    Py_XDECREF(EVAL_TABLE);
    Py_XDECREF(EVAL_FALLBACK);
    EVAL_TABLE = table;
    EVAL_FALLBACK = fallback;
    EVAL_MASK = mask;
    Py_RETURN_NONE;
}

/* A list or tuple of 3 or 5 ints is summed and looked up; anything else (and a sum that is
   not in the table) goes to the Python evaluate, which returns the same value or raises the
   same error. */
static PyObject *evaluate_py(PyObject *self, PyObject *cards) {
    (void)self;
    if (!EVAL_TABLE) {
        PyErr_SetString(PyExc_RuntimeError, "set_evaluator() was not called");
        return NULL;
    }
    Py_ssize_t n;
    PyObject **items;
    if (PyList_CheckExact(cards)) {
        n = PyList_GET_SIZE(cards);
        items = ((PyListObject *)cards)->ob_item;
    } else if (PyTuple_CheckExact(cards)) {
        n = PyTuple_GET_SIZE(cards);
        items = ((PyTupleObject *)cards)->ob_item;
    } else {
        return PyObject_CallOneArg(EVAL_FALLBACK, cards);
    }
    if (n != 5 && n != 3) return PyObject_CallOneArg(EVAL_FALLBACK, cards);
    unsigned long long sum = 0;
    for (Py_ssize_t i = 0; i < n; i++) {
        PyObject *c = items[i];
        if (!PyLong_Check(c)) return PyObject_CallOneArg(EVAL_FALLBACK, cards);
        int overflow = 0;
        long long v = PyLong_AsLongLongAndOverflow(c, &overflow);
        if (overflow || v < 0 || v > (1LL << 58)) {
            if (PyErr_Occurred()) PyErr_Clear();
            return PyObject_CallOneArg(EVAL_FALLBACK, cards);
        }
        sum += (unsigned long long)v;
    }
    PyObject *key = PyLong_FromUnsignedLongLong(sum & EVAL_MASK);
    if (!key) return NULL;
    PyObject *value = PyDict_GetItemWithError(EVAL_TABLE, key);
    Py_DECREF(key);
    if (value) {
        Py_INCREF(value);
        return value;
    }
    if (PyErr_Occurred()) return NULL;
    return PyObject_CallOneArg(EVAL_FALLBACK, cards);
}

static PyMethodDef module_methods[] = {
    {"set_evaluator", set_evaluator, METH_VARARGS,
     "set_evaluator(table, mask, fallback): the tables of the compiled evaluate."},
    {"evaluate", evaluate_py, METH_O,
     "evaluate(cards): the value of 3 or 5 distinct cards (see engine.evaluate)."},
    {"load_values", load_values, METH_VARARGS,
     "load_values(table, mask): the evaluator's table of complete-row values."},
    {"sample", sample_py, METH_VARARGS,
     "sample(unseen, need, rounds, seed): the futures simulate() plays with this seed."},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef moduledef = {
    PyModuleDef_HEAD_INIT, "engine._fastai",
    "Compiled rollouts of the AI (see engine/ai.py).", -1, module_methods, NULL, NULL, NULL, NULL,
};

PyMODINIT_FUNC PyInit__fastai(void) {
    if (PyType_Ready(&CoreType) < 0 || PyType_Ready(&CtxType) < 0) return NULL;
    PyObject *m = PyModule_Create(&moduledef);
    if (!m) return NULL;
    if (PyModule_AddIntConstant(m, "CORE_VERSION", 2) < 0) { /* engine/_core.py */
        Py_DECREF(m);
        return NULL;
    }
    Py_INCREF(&CoreType);
    if (PyModule_AddObject(m, "Core", (PyObject *)&CoreType) < 0) {
        Py_DECREF(&CoreType);
        Py_DECREF(m);
        return NULL;
    }
    Py_INCREF(&CtxType);
    if (PyModule_AddObject(m, "Ctx", (PyObject *)&CtxType) < 0) {
        Py_DECREF(&CtxType);
        Py_DECREF(m);
        return NULL;
    }
    return m;
}
