-- The scope columns compare exactly. utf8mb4_bin is a PAD SPACE collation: it ignores trailing spaces, so the
-- owners "bob" and "bob " would share one record. utf8mb4_nopad_bin compares the bytes as they are. The other
-- text columns and the table's default follow, so that the table has one collation. No two rows can collide:
-- rows that were distinct under PAD SPACE stay distinct without it. Rebuilds the primary key, which takes a
-- while on a big table.
ALTER TABLE onceonly_record
    MODIFY owner            VARCHAR(255) CHARACTER SET utf8mb4 COLLATE utf8mb4_nopad_bin NOT NULL,
    MODIFY operation        VARCHAR(255) CHARACTER SET utf8mb4 COLLATE utf8mb4_nopad_bin NOT NULL,
    MODIFY idem_key         VARCHAR(255) CHARACTER SET utf8mb4 COLLATE utf8mb4_nopad_bin NOT NULL,
    MODIFY response_headers MEDIUMTEXT   CHARACTER SET utf8mb4 COLLATE utf8mb4_nopad_bin NULL,
    MODIFY resource_id      VARCHAR(255) CHARACTER SET utf8mb4 COLLATE utf8mb4_nopad_bin NULL,
    DEFAULT CHARACTER SET utf8mb4 COLLATE utf8mb4_nopad_bin;
