-- name: InsertOrder :one
INSERT INTO orders (customer_id, parent_id, refund_trace, note)
VALUES (@customer_id, @parent_id, @refund_trace, @note)
RETURNING *;

-- name: GetOrder :one
SELECT *, scru128_to_text(trace) AS trace_text, huid_timestamp(id) AS created_at
FROM orders
WHERE id = @id;

-- name: OrdersBetween :many
SELECT * FROM orders
WHERE id BETWEEN huid_min(@since) AND huid_max(@until)
ORDER BY id;

-- name: OrdersByIDs :many
SELECT * FROM orders
WHERE id = ANY(@ids::huid[])
ORDER BY id;

-- name: OrderByReceipt :one
SELECT * FROM orders
WHERE receipt = @receipt::scru128_bytes;

-- name: NewIDs :one
SELECT huid_generate()::huid AS huid, scru128_generate() AS scru128;

-- name: TraceText :one
SELECT scru128_to_text(@trace::uuid);

-- name: ParseTrace :one
SELECT scru128_from_text(@text);
