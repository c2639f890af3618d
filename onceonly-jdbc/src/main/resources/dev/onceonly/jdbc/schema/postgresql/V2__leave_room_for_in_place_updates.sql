-- Completing a record updates only columns without an index (a success keeps the expiry its claim set), so
-- PostgreSQL can update it in place (HOT) if its page has room: leave 30 % of each page free for that.
ALTER TABLE onceonly_record SET (fillfactor = 70);
