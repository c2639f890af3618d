-- The task queue of asynchronous operations (db-scheduler's table layout, under a name of OnceOnly's own, so
-- that an application's own db-scheduler never sees these tasks as unknown ones and deletes them). A task holds
-- the operation's scope and payload until its worker has stored the outcome. Times are DATETIME(6) in UTC, as in
-- onceonly_record: a first TIMESTAMP column would get MariaDB's implicit ON UPDATE CURRENT_TIMESTAMP.
CREATE TABLE onceonly_scheduled_task (
    task_name            VARCHAR(100) CHARACTER SET utf8mb4 COLLATE utf8mb4_nopad_bin NOT NULL,
    task_instance        VARCHAR(100) CHARACTER SET utf8mb4 COLLATE utf8mb4_nopad_bin NOT NULL,
    task_data            LONGBLOB     NULL,
    execution_time       DATETIME(6)  NOT NULL,
    picked               BOOLEAN      NOT NULL,
    picked_by            VARCHAR(50)  NULL,
    last_success         DATETIME(6)  NULL,
    last_failure         DATETIME(6)  NULL,
    consecutive_failures INT          NULL,
    last_heartbeat       DATETIME(6)  NULL,
    version              BIGINT       NOT NULL,
    priority             SMALLINT     NULL,
    PRIMARY KEY (task_name, task_instance),
    INDEX onceonly_scheduled_task_execution_time_idx (execution_time),
    INDEX onceonly_scheduled_task_last_heartbeat_idx (last_heartbeat)
) ENGINE = InnoDB DEFAULT CHARSET = utf8mb4 COLLATE = utf8mb4_nopad_bin;
