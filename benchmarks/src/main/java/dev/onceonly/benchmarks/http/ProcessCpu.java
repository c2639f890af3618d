package dev.onceonly.benchmarks.http;

import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;
import org.jspecify.annotations.Nullable;

/** CPU time used by processes on this machine, read from Linux's {@code /proc}, in clock ticks. */
final class ProcessCpu {

    /** {@code USER_HZ}: 100 ticks a second on Linux. */
    private static final double MILLIS_PER_TICK = 10.0;

    private ProcessCpu() {
    }

    /** What process {@code pid} used so far, all its threads. */
    static long ticks(long pid) throws IOException {
        return ticks(Files.readString(Path.of("/proc", Long.toString(pid), "stat")));
    }

    /**
     * What every PostgreSQL process used so far (backends, WAL writer, checkpointer, autovacuum): what the database
     * spends on a workload.
     */
    static long postgresTicks() throws IOException {
        return ticksOf("postgres");
    }

    /**
     * What every Redis server process used so far: what Redis spends on a workload (during a benchmark only the
     * shared one runs; tests' own servers are not started).
     */
    static long redisTicks() throws IOException {
        return ticksOf("redis-server");
    }

    /** What every process whose command is {@code name} used so far. */
    private static long ticksOf(String name) throws IOException {
        long ticks = 0;
        try (DirectoryStream<Path> processes = Files.newDirectoryStream(Path.of("/proc"), "[0-9]*")) {
            for (Path process : processes) {
                String stat;
                try {
                    stat = Files.readString(process.resolve("stat"));
                } catch (IOException exited) {
                    continue;
                }
                if (command(stat).equals(name)) {
                    ticks += ticks(stat);
                }
            }
        }
        return ticks;
    }

    /**
     * What all cores spent so far running this machine's work: user, nice, system, interrupts and soft interrupts
     * (the first line of {@code /proc/stat}; not idle, I/O wait, or the steal of a hypervisor running other guests).
     * With both cores busy, what a request costs the whole machine decides the throughput: the service, the
     * database, the load driver and the kernel's network stack between them.
     */
    static long machineTicks() throws IOException {
        return machineTicks(Files.readAllLines(Path.of("/proc/stat")).getFirst());
    }

    /** The ticks of {@link #machineTicks()} in {@code /proc/stat}'s first line, {@code cpu  user nice system …}. */
    static long machineTicks(String cpuLine) {
        String[] cpu = cpuLine.trim().split("\\s+");
        long ticks = 0;
        for (int field : new int[] {1, 2, 3, 6, 7}) {
            ticks += Long.parseLong(cpu[field]);
        }
        return ticks;
    }

    /**
     * What this process, the load driver, used so far. It shares the cores with the service and the database, so
     * what it spends on a request is taken from theirs: the report shows it, so that a ratio can be read without it.
     */
    static long driverTicks() throws IOException {
        return ticks(Files.readString(Path.of("/proc/self/stat")));
    }

    /**
     * The CPU time the machine, PostgreSQL, Redis, the load driver and, where one is measured, a service process had
     * used at one moment; two of them make what a round cost.
     */
    record Clocks(long machine, long database, long redis, long driver, @Nullable Long service) {

        static Clocks read(@Nullable ServiceProcess service) throws IOException {
            return new Clocks(machineTicks(), postgresTicks(), redisTicks(), driverTicks(),
                    service == null ? null : service.cpuTicks());
        }

        /** What was used between {@code start} and this moment. */
        Clocks since(Clocks start) {
            return new Clocks(machine - start.machine, database - start.database, redis - start.redis,
                    driver - start.driver, service == null || start.service == null ? null : service - start.service);
        }
    }

    /**
     * What the threads of process {@code pid} whose names start with {@code prefix} spent so far on a core and
     * waiting for one (Linux's schedstat, in nanoseconds), by thread id.
     */
    static Map<Long, Schedule> schedules(long pid, String prefix) throws IOException {
        Map<Long, Schedule> schedules = new HashMap<>();
        try (DirectoryStream<Path> threads = Files.newDirectoryStream(Path.of("/proc", Long.toString(pid), "task"))) {
            for (Path thread : threads) {
                try {
                    if (!Files.readString(thread.resolve("comm")).startsWith(prefix)) {
                        continue;
                    }
                    String[] fields = Files.readString(thread.resolve("schedstat")).trim().split(" ");
                    schedules.put(Long.parseLong(thread.getFileName().toString()),
                            new Schedule(Long.parseLong(fields[0]), Long.parseLong(fields[1])));
                } catch (NoSuchFileException exited) {
                    // the thread ended meanwhile
                }
            }
        }
        return schedules;
    }

    /** Nanoseconds a thread ran on a core, and waited runnable for one. */
    record Schedule(long runNanos, long waitNanos) {

        /** What the threads of {@code end} did since {@code start}; a thread missing from the start began after it. */
        static Schedule between(Map<Long, Schedule> start, Map<Long, Schedule> end) {
            long run = 0;
            long wait = 0;
            for (Map.Entry<Long, Schedule> thread : end.entrySet()) {
                Schedule before = start.getOrDefault(thread.getKey(), new Schedule(0, 0));
                run += thread.getValue().runNanos() - before.runNanos();
                wait += thread.getValue().waitNanos() - before.waitNanos();
            }
            return new Schedule(run, wait);
        }
    }

    static double millis(long ticks) {
        return ticks * MILLIS_PER_TICK;
    }

    /** The command name, in parentheses; it may hold spaces and parentheses of its own. */
    private static String command(String stat) {
        return stat.substring(stat.indexOf('(') + 1, stat.lastIndexOf(')'));
    }

    /** utime plus stime, the 12th and 13th fields after the command name. */
    private static long ticks(String stat) {
        String[] fields = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
        return Long.parseLong(fields[11]) + Long.parseLong(fields[12]);
    }
}
