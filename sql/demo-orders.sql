-- A service writes its business change and its event in one transaction; deleting the event
-- row in the same transaction keeps the outbox table empty (the INSERT is still in the WAL).
BEGIN;
INSERT INTO orders (id, customer, total) VALUES (1001, 'alice', 42.50);
INSERT INTO outbox (id, aggregatetype, aggregateid, type, payload) VALUES
  ('6c1f9a1e-0001-4d8e-9b7a-000000001001', 'Order', '1001', 'OrderCreated',
   '{"orderId": 1001, "customer": "alice", "total": 42.50}');
COMMIT;

BEGIN;
INSERT INTO orders (id, customer, total) VALUES (1002, 'bob', 17.00);
INSERT INTO outbox (id, aggregatetype, aggregateid, type, payload) VALUES
  ('6c1f9a1e-0002-4d8e-9b7a-000000001002', 'Order', '1002', 'OrderCreated',
   '{"orderId": 1002, "customer": "bob", "total": 17.00}'),
  ('6c1f9a1e-0003-4d8e-9b7a-000000001003', 'Customer', 'bob', 'CustomerOrdered',
   '{"customer": "bob", "orders": 1}');
DELETE FROM outbox WHERE aggregateid IN ('1002', 'bob');
COMMIT;

BEGIN;
INSERT INTO outbox (id, aggregatetype, aggregateid, type, payload) VALUES
  ('6c1f9a1e-0004-4d8e-9b7a-000000001004', 'Order', '1001', 'OrderPaid', '{"orderId": 1001, "paid": true}');
ROLLBACK;  -- never committed, so never published

UPDATE orders SET total = 45.00 WHERE id = 1001;  -- not an outbox table: ignored
INSERT INTO outbox (id, aggregatetype, aggregateid, type, payload) VALUES
  ('6c1f9a1e-0005-4d8e-9b7a-000000001005', 'Order', '1001', 'OrderUpdated', '{"orderId": 1001, "total": 45.00}');
