-- The application's table, after the sortid migration: HUID keys in the huid
-- domain or a plain bigint, SCRU128 IDs in uuid and scru128_bytes columns.
CREATE TABLE orders (
  id           huid PRIMARY KEY DEFAULT huid_generate(),
  customer_id  bigint NOT NULL,
  parent_id    huid REFERENCES orders (id),
  trace        uuid NOT NULL DEFAULT scru128_generate(),
  refund_trace uuid,
  receipt      scru128_bytes DEFAULT scru128_generate_bytea(),
  note         text NOT NULL
);
