-- The task queue of asynchronous operations (db-scheduler's table layout, under a name of OnceOnly's own, so
-- that an application's own db-scheduler never sees these tasks as unknown ones and deletes them). A task holds
-- the operation's scope and payload until its worker has stored the outcome.
CREATE TABLE onceonly_scheduled_task (
    task_name            text        NOT NULL,
    task_instance        text        NOT NULL,
    task_data            bytea,
    execution_time       timestamptz NOT NULL,
    picked               boolean     NOT NULL,
    picked_by            text,
    last_success         timestamptz,
    last_failure         timestamptz,
    consecutive_failures integer,
    last_heartbeat       timestamptz,
    version              bigint      NOT NULL,
    priority             smallint,
    CONSTRAINT onceonly_scheduled_task_pk PRIMARY KEY (task_name, task_instance)
);

CREATE INDEX onceonly_scheduled_task_execution_time_idx ON onceonly_scheduled_task (execution_time);
CREATE INDEX onceonly_scheduled_task_last_heartbeat_idx ON onceonly_scheduled_task (last_heartbeat);
