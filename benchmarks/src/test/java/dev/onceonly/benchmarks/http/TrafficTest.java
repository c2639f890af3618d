package dev.onceonly.benchmarks.http;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.junit.jupiter.api.Test;

class TrafficTest {

    @Test
    void countsTheSegmentsThatTheServicesOwnConnectionsSentToTheDatabaseAndToRedis() {
        List<String> ss = List.of(
                "0      0      127.0.0.1:57144 127.0.0.1:5432 users:((\"java\",pid=41,fd=3))",
                "\t bbr wscale:10,10 rto:200 segs_out:20 segs_in:19 data_segs_out:12 data_segs_in:11 send 1bps",
                "0      0      127.0.0.1:57150 127.0.0.1:5432 users:((\"java\",pid=41,fd=4))",
                "\t bbr wscale:10,10 rto:200 segs_out:9 segs_in:9 data_segs_out:5 send 1bps",
                "0      0      127.0.0.1:40000 127.0.0.1:6379 users:((\"java\",pid=41,fd=9))",
                "\t bbr wscale:10,10 rto:200 segs_out:3 data_segs_out:2 send 1bps",
                // Another service's, and the service's connection to elsewhere: neither counts.
                "0      0      127.0.0.1:57160 127.0.0.1:5432 users:((\"java\",pid=42,fd=3))",
                "\t bbr data_segs_out:100",
                "0      0      127.0.0.1:57170 127.0.0.1:8080 users:((\"java\",pid=41,fd=7))",
                "\t bbr data_segs_out:100",
                // A connection that has sent no data yet has no such counter.
                "0      0      127.0.0.1:57180 127.0.0.1:5432 users:((\"java\",pid=41,fd=8))",
                "\t bbr wscale:10,10 rto:200 segs_out:2 segs_in:1");

        assertThat(Traffic.segmentsOut(ss, 41)).containsExactly(17, 2);
    }
}
