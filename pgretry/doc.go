// Package pgretry inserts rows whose key is an auto-generated HUID again,
// with a fresh ID, when the ID collides with an existing one.
//
// A HUID has only 21 random bits per millisecond, so IDs made in the same
// millisecond by different generators can collide (idtype.HUIDCollisions
// gives the birthday-bound rate): Go processes, different servers or
// installs of sortid's SQL functions, Citus workers, and database sessions
// in read-only transactions. On one server, DEFAULT huid_generate() keys do
// not collide with each other, as the server is one generator; a table
// needs the retry when it also gets keys made elsewhere. PostgreSQL reports
// a collision on a unique key as SQLSTATE 23505 (unique_violation). Such an
// insert is safe to repeat, provided every attempt makes a new ID: let the
// column's DEFAULT huid_generate() fire again, or call idtype.NewHUID inside
// the attempt.
//
// # Go helper
//
// [Insert] runs an insert until it succeeds, retrying on [IsUniqueViolation]
// errors; [InsertOn] retries only on violations of one named constraint (the
// primary key), so that a duplicate e-mail address, say, fails at once.
// Errors are recognised through errors.As on any error with a
// SQLState() string method, which both *pgconn.PgError (pgx v5) and
// *pq.Error (github.com/lib/pq) have; the constraint name is read from their
// ConstraintName and Constraint fields. This package imports neither driver.
//
//	retries, err := pgretry.InsertOn(ctx, "events_pkey", 5, func(ctx context.Context) error {
//		_, err := pool.Exec(ctx, "INSERT INTO events (payload) VALUES ($1)", payload)
//		return err
//	})
//
// On a partitioned table PostgreSQL names the partition's index in the
// error (events_2026_12_pkey), never the parent's events_pkey, so InsertOn
// with the parent's name retries nothing there. [InsertOnKey] names the key
// by its columns instead, which the error's detail gives on every partition
// ("Key (id)=(…) already exists."):
//
//	retries, err := pgretry.InsertOnKey(ctx, []string{"id"}, 5, insert)
//
// # Citus
//
// Citus passes a shard's unique violation on in two forms: SQLSTATE 23505
// naming the shard's copy of the constraint (events_pkey_102009), with the
// ConstraintName field often empty, and, from a COPY or an INSERT ...
// SELECT through the coordinator, SQLSTATE XX000 with PostgreSQL's message
// for a unique violation. [IsUniqueViolation] counts both (the XX000 form
// by its English message); [InsertOn] with "events_pkey" matches the
// shard's name; [InsertOnKey] reads the detail, which Citus keeps.
//
// The XX000 message is in the language of Citus's own sessions on the nodes
// that hold the shard (the workers; for a reference table every node, the
// coordinator too): their lc_messages comes from the server's configuration
// or a database or role setting, not from the client's SET lc_messages
// (Citus passes on only a SET LOCAL, with citus.propagate_set_commands =
// 'local'). With servers in another language, none of the helpers retries
// the XX000 form; run ALTER DATABASE app SET lc_messages = 'C' (or ALTER
// ROLE app SET lc_messages = 'C') as a superuser on the coordinator, which
// Citus passes on to every node.
//
// # Transactions
//
// Inside an explicit transaction a failed INSERT aborts the whole
// transaction (SQLSTATE 25P02 for every later statement), so retrying the
// bare INSERT cannot work. Either run the insert outside a transaction, or
// wrap every attempt in a savepoint:
//
//	_, err := pgretry.InsertOn(ctx, "events_pkey", 5, func(ctx context.Context) error {
//		if _, err := tx.Exec(ctx, "SAVEPOINT huid_insert"); err != nil {
//			return err
//		}
//		if _, err := tx.Exec(ctx, "INSERT INTO events (payload) VALUES ($1)", payload); err != nil {
//			_, _ = tx.Exec(ctx, "ROLLBACK TO SAVEPOINT huid_insert")
//			return err
//		}
//		_, err := tx.Exec(ctx, "RELEASE SAVEPOINT huid_insert")
//		return err
//	})
//
// (With pgx, tx.Begin(ctx) on a pgx.Tx makes the savepoint for you.)
//
// # Plain SQL
//
// Without this package, let the key's arbiter swallow the collision and ask
// for the new row back; an empty result means the ID was taken and the same
// statement is simply run again, which generates a fresh ID. The statement
// never raises on a key collision, so it needs no savepoint inside a
// transaction, and any other constraint still raises:
//
//	INSERT INTO events (payload) VALUES ($1)
//	ON CONFLICT (id) DO NOTHING
//	RETURNING id
//
// An insert function may map "no row returned" to [ErrNoRowInserted] so that
// [Insert] and [InsertOn] retry it as well. The same loop can run inside the
// database, for example in a PL/pgSQL block or function:
//
//	DO $$
//	DECLARE
//	  new_id bigint;
//	BEGIN
//	  FOR attempt IN 1..5 LOOP
//	    INSERT INTO events (payload) VALUES ('hello')
//	    ON CONFLICT (id) DO NOTHING
//	    RETURNING id INTO new_id;
//	    IF new_id IS NOT NULL THEN
//	      RETURN;
//	    END IF;
//	  END LOOP;
//	  RAISE EXCEPTION USING ERRCODE = 'unique_violation',
//	    MESSAGE = 'events: no fresh id after 5 attempts';
//	END
//	$$;
//
// The table in these examples is
//
//	CREATE TABLE events (id huid PRIMARY KEY DEFAULT huid_generate(), payload text);
package pgretry
