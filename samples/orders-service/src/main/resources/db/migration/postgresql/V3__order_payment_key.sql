-- The downstream key of the one payment an order is paid by: bound by the first payment request, so a payment
-- under another idempotency key is refused before it reaches the provider.
ALTER TABLE orders ADD COLUMN payment_key varchar(64) NULL;
