package dev.onceonly.example;

import org.junit.jupiter.api.BeforeEach;
import org.springframework.test.context.TestPropertySource;

/**
 * Paying orders, leased and asynchronously, on a slow database (issue 39): every insert into the record table takes
 * 200 ms longer (a trigger that sleeps, as a disk stall or a synchronous standby makes it). A slow database is not
 * a held key: fresh keys pay with one charge, and only a retry of a running payment is answered "in progress". On
 * the code before, every leased payment was refused with 409 {@code request-in-progress} and nothing ran.
 */
@TestPropertySource(properties = {
    "spring.datasource.url=${onceonly.test.postgres.url:jdbc:postgresql://127.0.0.1:5432/test?user=postgres}"
            + "&currentSchema=onceonly_example_slow",
    "spring.flyway.schemas=onceonly_example_slow"
})
class PostgresSlowInsertsOrderPaymentsHttpIT extends OrderPaymentsHttpContract {

    @BeforeEach
    void slowRecordInserts() {
        jdbc.sql("CREATE OR REPLACE FUNCTION onceonly_slow_insert() RETURNS trigger LANGUAGE plpgsql"
                + " AS $$ BEGIN PERFORM pg_sleep(0.2); RETURN NEW; END $$").update();
        jdbc.sql("CREATE OR REPLACE TRIGGER onceonly_slow_insert BEFORE INSERT ON onceonly_record"
                + " FOR EACH ROW EXECUTE FUNCTION onceonly_slow_insert()").update();
    }
}
