package dev.onceonly.benchmarks.jmh;

/** Deterministic order-like JSON documents of a requested size, as clients send them (not canonical). */
final class OrderBodies {

    private OrderBodies() {
    }

    /** A JSON order whose UTF-8 form is at least {@code bytes} long and close to it. */
    static String ofSize(int bytes) {
        StringBuilder json = new StringBuilder("{\"quantity\": 2, \"skuId\": 42, \"customer\": {\"name\": "
                + "\"Ada L\u00f6velace\", \"tier\": \"gold\"}, \"items\": [");
        int item = 0;
        while (json.length() < bytes - 80) {
            json.append(item == 0 ? "" : ", ").append("{\"sku\": ").append(1000 + item)
                    .append(", \"price\": ").append(19.5 + item).append(", \"note\": \"gift wrap\"}");
            item++;
        }
        json.append("], \"currency\": \"EUR\"}");
        return json.toString();
    }
}
