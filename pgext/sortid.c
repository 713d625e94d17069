/*
 * sortid.c: the native implementation of sortid's generators, the same rules
 * as the plain SQL of migrations/sql/0001_sortid.up.sql, which defines these
 * functions as LANGUAGE c when this library is installed (see README.md).
 */
#include "postgres.h"

#include "access/htup_details.h"
#include "access/xact.h"
#include "catalog/pg_proc.h"
#include "common/hashfn.h"
#include "catalog/pg_sequence.h"
#include "commands/sequence.h"
#include "fmgr.h"
#include "miscadmin.h"
#include "port/pg_bswap.h"
#include "utils/builtins.h"
#include "utils/guc.h"
#include "utils/fmgrprotos.h"
#include "utils/lsyscache.h"
#include "utils/syscache.h"
#include "utils/timestamp.h"
#include "utils/uuid.h"

PG_MODULE_MAGIC;

/* Microseconds from PostgreSQL's epoch (2000-01-01) to the Unix epoch. */
#define UNIX_US (-INT64CONST(946684800000000))
/* The HUID epoch, 2026-01-01, and the SCRU128 epoch, 2020-01-01, in Unix ms. */
#define HUID_EPOCH_MS INT64CONST(1767225600000)
#define SCRU128_EPOCH_MS INT64CONST(1577836800000)
/* Milliseconds past the HUID epoch of the last valid HUID. */
#define HUID_MAX_MS ((INT64CONST(1) << 42) - 1)
#define HUID_TAIL INT64CONST(2097151)
#define HUID_WINDOW "[2026-01-01 00:00:00+00, 2165-05-15 07:35:11.103+00]"
#define SCRU128_MAX_COUNTER INT64CONST(268435455)
/* Timestamps 0 and 2^44-1 are reserved: a generated ID lies within these. */
#define SCRU128_MIN_TS INT64CONST(1)
#define SCRU128_MAX_TS ((INT64CONST(1) << 44) - 2)

/*
 * Random bytes from pg_strong_random, drawn a block at a time and never
 * shared across fork: a block drawn in another process (the postmaster,
 * with shared_preload_libraries) is thrown away.
 */
static uint8 rand_buf[512];
static int	rand_pos = sizeof(rand_buf);
static int	rand_pid = 0;

static uint64
random_bits(int nbytes)
{
	uint64		v = 0;

	if (rand_pid != MyProcPid || rand_pos + nbytes > (int) sizeof(rand_buf))
	{
		if (!pg_strong_random(rand_buf, sizeof(rand_buf)))
			ereport(ERROR,
					(errcode(ERRCODE_INTERNAL_ERROR),
					 errmsg("sortid: could not generate random bytes")));
		rand_pos = 0;
		rand_pid = MyProcPid;
	}
	for (int i = 0; i < nbytes; i++)
		v = (v << 8) | rand_buf[rand_pos++];
	return v;
}

/* floor_div is a / b rounded down (b > 0). */
static int64
floor_div(int64 a, int64 b)
{
	return a / b - (a % b < 0 ? 1 : 0);
}

/* unix_ms is the Unix millisecond (floor) of t, a finite timestamp. */
static int64
unix_ms(TimestampTz t)
{
	return floor_div(t, 1000) - UNIX_US / 1000;
}

static char *
ts_text(TimestampTz t)
{
	return DatumGetCString(DirectFunctionCall1(timestamptz_out, TimestampTzGetDatum(t)));
}

/* huid_window_ms is t's millisecond past the HUID epoch, or raises 22008 naming fn and t. */
static int64
huid_window_ms(TimestampTz t, const char *fn, const char *what)
{
	int64		ms = TIMESTAMP_NOT_FINITE(t) ? -1 : unix_ms(t) - HUID_EPOCH_MS;

	if (ms < 0 || ms > HUID_MAX_MS)
		ereport(ERROR,
				(errcode(ERRCODE_DATETIME_VALUE_OUT_OF_RANGE),
				 errmsg("%s: %s%s is outside the HUID window " HUID_WINDOW, fn, what, ts_text(t))));
	return ms;
}

/* hash8 is PostgreSQL's hashint8extended(v, seed), without the fmgr call. */
static int64
hash8(int64 v, int64 seed)
{
	uint32		lohalf = (uint32) v;
	uint32		hihalf = (uint32) (v >> 32);

	lohalf ^= (v >= 0) ? hihalf : ~hihalf;
	return (int64) hash_uint32_extended(lohalf, (uint64) seed);
}

/*
 * huid_mix is sortid_huid_mix of the SQL: position v (ms << 21 | counter) to
 * the HUID whose tail is a 4-round Feistel permutation of the counter under
 * key k and v's millisecond, hashing as the SQL's hashint8extended does, so
 * that both implementations make the same key of the same position.
 */
static int64
huid_mix(int64 v, int64 k)
{
	int64		s = k ^ (v >> 21);
	int64		a = ((v >> 11) & 1023) ^ (hash8(v & 2047, s) & 1023);
	int64		b = (v & 2047) ^ (hash8(a | 4096, s) & 2047);

	a ^= hash8(b | 8192, s) & 1023;
	return (v & ~HUID_TAIL) | (a << 11) | (b ^ (hash8(a | 12288, s) & 2047));
}

/*
 * counter_of finds the sequence sortid_huid_counter in the schema of the
 * called function, once per call site.
 */
static Oid
counter_of(FunctionCallInfo fcinfo)
{
	Oid		   *cached = (Oid *) fcinfo->flinfo->fn_extra;

	if (cached == NULL)
	{
		Oid			nsp = get_func_namespace(fcinfo->flinfo->fn_oid);
		Oid			relid = get_relname_relid("sortid_huid_counter", nsp);

		if (!OidIsValid(relid))
			ereport(ERROR,
					(errcode(ERRCODE_UNDEFINED_OBJECT),
					 errmsg("huid_generate: schema %s has no sequence sortid_huid_counter",
							get_namespace_name(nsp)),
					 errhint("Run the sortid up migration in that schema.")));
		cached = MemoryContextAlloc(fcinfo->flinfo->fn_mcxt, sizeof(Oid));
		*cached = relid;
		fcinfo->flinfo->fn_extra = cached;
	}
	return *cached;
}

/*
 * huid_key is sortid_huid_key of the SQL: the START value of the counter,
 * raising 55000 with the ALTER that restores it when CACHE, INCREMENT or
 * CYCLE would let two sessions use counters 2^21 apart in one millisecond.
 */
static int64
huid_key(Oid relid)
{
	HeapTuple	tup = SearchSysCache1(SEQRELID, ObjectIdGetDatum(relid));
	Form_pg_sequence seq;
	int64		start;

	if (!HeapTupleIsValid(tup))
		elog(ERROR, "cache lookup failed for sequence %u", relid);
	seq = (Form_pg_sequence) GETSTRUCT(tup);
	if (seq->seqcache != 1 || seq->seqincrement != 1 || seq->seqcycle)
	{
		char	   *name = DatumGetCString(DirectFunctionCall1(regclassout, ObjectIdGetDatum(relid)));

		ereport(ERROR,
				(errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
				 errmsg("huid_generate: sequence %s has CACHE " INT64_FORMAT ", INCREMENT BY " INT64_FORMAT ", %s; the server's HUIDs stay distinct only with CACHE 1, INCREMENT BY 1, NO CYCLE",
						name, seq->seqcache, seq->seqincrement, seq->seqcycle ? "CYCLE" : "NO CYCLE"),
				 errhint("ALTER SEQUENCE %s CACHE 1 INCREMENT BY 1 NO CYCLE", name)));
	}
	start = seq->seqstart;
	ReleaseSysCache(tup);
	return start;
}

/*
 * Session state lives in the custom settings the plain SQL uses, so it rolls
 * back with a (sub)transaction as the SQL's does, and a session that calls
 * both implementations (during a switch, or installs in two schemas) keeps
 * one generator.
 */
static const char *
setting(const char *name)
{
	const char *v = GetConfigOption(name, true, false);

	return v ? v : "";
}

static void
set_setting(const char *name, const char *value)
{
	(void) set_config_option(name, value, PGC_USERSET, PGC_S_SESSION, GUC_ACTION_SET, true, 0, false);
}

/* to_int8 reads s as the SQL's ::bigint cast does, with its errors. */
static int64
to_int8(const char *s)
{
	return DatumGetInt64(DirectFunctionCall1(int8in, CStringGetDatum(s)));
}

/*
 * huid_session is sortid_huid_session of the SQL, the generator of read-only
 * transactions: position = max(last + 1, clock in units of 2^-21 ms) in
 * sortid.huid_state, under the key in sortid.huid_key (drawn on first use)
 * with the backend's pid mixed in, so a session's HUIDs never go back.
 */
static int64
huid_session(int64 ms, TimestampTz now)
{
	int64		clock_pos = (ms << 21) | ((now - UNIX_US) % 1000 * 2097152 / 1000);
	int64		pos = Max(to_int8(psprintf("0%s", setting("sortid.huid_state"))) + 1, clock_pos);
	const char *key_text = setting("sortid.huid_key");
	int64		key;

	set_setting("sortid.huid_state", psprintf(INT64_FORMAT, pos));
	if (key_text[0] != '\0')
		key = to_int8(key_text);
	else
	{
		key = (int64) random_bits(8);
		set_setting("sortid.huid_key", psprintf(INT64_FORMAT, key));
	}
	return huid_mix(pos, key ^ ((int64) MyProcPid << 42));
}

PG_FUNCTION_INFO_V1(sortid_huid_generate);

/*
 * sortid_huid_generate is huid_generate(): the millisecond of the clock and,
 * on a primary, the keyed permutation of nextval(sortid_huid_counter) modulo
 * 2^21; in a read-only transaction the per-session generator.
 */
Datum
sortid_huid_generate(PG_FUNCTION_ARGS)
{
	TimestampTz now = GetCurrentTimestamp();
	int64		ms = huid_window_ms(now, "huid_generate", "clock ");
	Oid			relid;
	int64		ctr;

	if (XactReadOnly)
		PG_RETURN_INT64(huid_session(ms, now));
	relid = counter_of(fcinfo);
	ctr = nextval_internal(relid, true);
	PG_RETURN_INT64(huid_mix((ms << 21) | (ctr & HUID_TAIL), huid_key(relid)));
}

PG_FUNCTION_INFO_V1(sortid_huid_generate_at);

/*
 * sortid_huid_generate_at is huid_generate_at(ts): ts's millisecond and 21
 * random bits. Not STRICT, as the SQL it replaces: NULL gives NULL.
 */
Datum
sortid_huid_generate_at(PG_FUNCTION_ARGS)
{
	int64		ms;

	if (PG_ARGISNULL(0))
		PG_RETURN_NULL();
	ms = huid_window_ms(PG_GETARG_TIMESTAMPTZ(0), "huid_generate_at", "");
	PG_RETURN_INT64((ms << 21) | (int64) (random_bits(3) & HUID_TAIL));
}

/*
 * A SCRU128 generator's state, as the settings sortid.scru128_state (the
 * last ID's fields, ts_last_sec and a key) and sortid.scru128_at_state (the
 * same less per_gen_random and the key) hold it in hex digits. The key is
 * the plain SQL's source of random bits, kept for it; this library draws
 * its bits from pg_strong_random.
 */
typedef struct Scru128State
{
	int64		ts;
	int64		counter;
	int64		per_sec;
	int64		per_gen;
	int64		ts_last_sec;
	char		key[33];
} Scru128State;

#define STATE_LEN 75
#define AT_STATE_LEN 35

/* hex_field reads n hex digits of s into *out; false if one is not a hex digit. */
static bool
hex_field(const char *s, int n, int64 *out)
{
	int64		v = 0;

	for (int i = 0; i < n; i++)
	{
		char		c = s[i];
		int			d;

		if (c >= '0' && c <= '9')
			d = c - '0';
		else if (c >= 'a' && c <= 'f')
			d = c - 'a' + 10;
		else if (c >= 'A' && c <= 'F')
			d = c - 'A' + 10;
		else
			return false;
		v = (v << 4) | d;
	}
	*out = v;
	return true;
}

static void
foreign_state(const char *fn, const char *name, const char *value)
{
	ereport(ERROR,
			(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
			 errmsg("%s: the setting %s holds %s, which this function did not write", fn, name, quote_literal_cstr(value)),
			 errhint("Do not set it; RESET %s starts a new generator.", name)));
}

static void
scru128_bytes(const Scru128State *s, uint8 *out)
{
	uint64		hi = ((uint64) s->ts << 20) | ((uint64) s->counter >> 8);
	uint64		lo = ((uint64) (s->counter & 255) << 56) | ((uint64) s->per_sec << 32) | (uint64) s->per_gen;

	hi = pg_hton64(hi);
	lo = pg_hton64(lo);
	memcpy(out, &hi, 8);
	memcpy(out + 8, &lo, 8);
}

/*
 * scru128_next makes the session's next scru128_generate() ID (the rules of
 * the SQL's scru128_generate and sortid_scru128_next) and stores the state.
 */
static void
scru128_next(Scru128State *s)
{
	const char *old = setting("sortid.scru128_state");
	TimestampTz now = GetCurrentTimestamp();
	int64		now_ts = unix_ms(now) - SCRU128_EPOCH_MS;
	bool		have = strlen(old) == STATE_LEN;

	if (have && !(hex_field(old, 11, &s->ts) && hex_field(old + 11, 7, &s->counter) &&
				  hex_field(old + 18, 6, &s->per_sec) && hex_field(old + 32, 11, &s->ts_last_sec)))
		foreign_state("scru128_generate", "sortid.scru128_state", old);
	if (have)
		memcpy(s->key, old + 43, 33);
	else
	{
		snprintf(s->key, sizeof(s->key), "%016" INT64_MODIFIER "x%016" INT64_MODIFIER "x", random_bits(8), random_bits(8));
		s->ts = -1;
		s->ts_last_sec = -1;
	}
	s->per_gen = (int64) random_bits(4);
	if (have && now_ts <= s->ts && now_ts >= s->ts - 10000 && s->counter < SCRU128_MAX_COUNTER)
		s->counter++;
	else
	{
		if (s->ts < 0 || now_ts > s->ts)
			s->ts = now_ts;
		else if (now_ts < s->ts - 10000)
		{
			s->ts = now_ts;
			s->ts_last_sec = -1;
		}
		else
			s->ts++;
		s->counter = (int64) (random_bits(4) & SCRU128_MAX_COUNTER);
		if (s->ts_last_sec < 0 || s->ts - s->ts_last_sec > 1000)
		{
			s->ts_last_sec = s->ts;
			s->per_sec = (int64) random_bits(3);
		}
		if (s->ts < SCRU128_MIN_TS || s->ts > SCRU128_MAX_TS)
			ereport(ERROR,
					(errcode(ERRCODE_DATETIME_VALUE_OUT_OF_RANGE),
					 errmsg("scru128_generate: clock %s gives SCRU128 timestamp " INT64_FORMAT ", outside 1 .. 17592186044414",
							ts_text(now), s->ts)));
	}
	set_setting("sortid.scru128_state",
				psprintf("%011" INT64_MODIFIER "x%07" INT64_MODIFIER "x%06" INT64_MODIFIER "x%08" INT64_MODIFIER "x%011" INT64_MODIFIER "x%s",
						 s->ts, s->counter, s->per_sec, s->per_gen, s->ts_last_sec, s->key));
}

/*
 * scru128_next_at makes the session's next scru128_generate_at(t) ID (the
 * rules of the SQL's scru128_generate_at) and stores the state.
 */
static void
scru128_next_at(Scru128State *s, TimestampTz t)
{
	const char *old = setting("sortid.scru128_at_state");
	bool		have = old[0] != '\0';
	int64		ms;

	if (have)
	{
		bool		ok = strlen(old) == AT_STATE_LEN;

		for (int i = 0; ok && i < AT_STATE_LEN; i++)
			ok = (old[i] >= '0' && old[i] <= '9') || (old[i] >= 'a' && old[i] <= 'f');
		if (!ok)
			foreign_state("scru128_generate_at", "sortid.scru128_at_state", old);
		(void) (hex_field(old, 11, &s->ts) && hex_field(old + 11, 7, &s->counter) &&
				hex_field(old + 18, 6, &s->per_sec) && hex_field(old + 24, 11, &s->ts_last_sec));
	}
	else
	{
		s->ts = -1;
		s->ts_last_sec = -1;
	}
	if (TIMESTAMP_NOT_FINITE(t) ||
		(ms = unix_ms(t) - SCRU128_EPOCH_MS) < SCRU128_MIN_TS || ms > SCRU128_MAX_TS)
		ereport(ERROR,
				(errcode(ERRCODE_DATETIME_VALUE_OUT_OF_RANGE),
				 errmsg("scru128_generate_at: %s is outside the SCRU128 range [2020-01-01 00:00:00.001+00, 2577-06-22 06:20:44.414+00] (the timestamps 0 and 2^44-1 are reserved)",
						ts_text(t))));
	if (s->ts == ms && s->counter >= SCRU128_MAX_COUNTER)
		ereport(ERROR,
				(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
				 errmsg("scru128_generate_at: the counter of the millisecond of %s is used up in this session (2^28-1 reached); make this ID at another time or in another session",
						ts_text(t))));
	if (s->ts == ms)
		s->counter++;
	else
		s->counter = (int64) (random_bits(4) & SCRU128_MAX_COUNTER);
	s->ts = ms;
	if (s->ts_last_sec < 0 || ms < s->ts_last_sec || ms - s->ts_last_sec > 1000)
	{
		s->ts_last_sec = ms;
		s->per_sec = (int64) random_bits(3);
	}
	s->per_gen = (int64) random_bits(4);
	set_setting("sortid.scru128_at_state",
				psprintf("%011" INT64_MODIFIER "x%07" INT64_MODIFIER "x%06" INT64_MODIFIER "x%011" INT64_MODIFIER "x",
						 s->ts, s->counter, s->per_sec, s->ts_last_sec));
}

static pg_uuid_t *
new_uuid(const Scru128State *s)
{
	pg_uuid_t  *u = palloc(sizeof(pg_uuid_t));

	scru128_bytes(s, u->data);
	return u;
}

static bytea *
new_bytea(const Scru128State *s)
{
	bytea	   *b = palloc(VARHDRSZ + UUID_LEN);

	SET_VARSIZE(b, VARHDRSZ + UUID_LEN);
	scru128_bytes(s, (uint8 *) VARDATA(b));
	return b;
}

PG_FUNCTION_INFO_V1(sortid_scru128_generate);

/* sortid_scru128_generate is scru128_generate(). */
Datum
sortid_scru128_generate(PG_FUNCTION_ARGS)
{
	Scru128State s;

	scru128_next(&s);
	PG_RETURN_UUID_P(new_uuid(&s));
}

PG_FUNCTION_INFO_V1(sortid_scru128_generate_bytea);

/* sortid_scru128_generate_bytea is scru128_generate_bytea(). */
Datum
sortid_scru128_generate_bytea(PG_FUNCTION_ARGS)
{
	Scru128State s;

	scru128_next(&s);
	PG_RETURN_BYTEA_P(new_bytea(&s));
}

PG_FUNCTION_INFO_V1(sortid_scru128_generate_at);

/* sortid_scru128_generate_at is scru128_generate_at(ts); NULL gives NULL. */
Datum
sortid_scru128_generate_at(PG_FUNCTION_ARGS)
{
	Scru128State s;

	if (PG_ARGISNULL(0))
		PG_RETURN_NULL();
	scru128_next_at(&s, PG_GETARG_TIMESTAMPTZ(0));
	PG_RETURN_UUID_P(new_uuid(&s));
}

PG_FUNCTION_INFO_V1(sortid_scru128_generate_at_bytea);

/* sortid_scru128_generate_at_bytea is scru128_generate_at_bytea(ts); NULL gives NULL. */
Datum
sortid_scru128_generate_at_bytea(PG_FUNCTION_ARGS)
{
	Scru128State s;

	if (PG_ARGISNULL(0))
		PG_RETURN_NULL();
	scru128_next_at(&s, PG_GETARG_TIMESTAMPTZ(0));
	PG_RETURN_BYTEA_P(new_bytea(&s));
}
