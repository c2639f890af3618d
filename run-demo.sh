#!/usr/bin/env bash
# Runs the reference service on http://localhost:8080 (with its own embedded PostgreSQL) and, beside it, the
# simulated payment provider on http://localhost:8090, each in a process of its own; the provider sends its
# signed webhooks to the service. Ctrl-C stops both. Arguments go to the service (e.g. --server.port=8081);
# PROVIDER_PORT=8091 ./run-demo.sh moves the provider, and tells the service where it is.
# Redis: the local one on 6379 if it answers; else a redis-server of the demo's own (without persistence) if the
# binary is installed; else none, and the service runs on the database alone. It says which.
set -euo pipefail
cd "$(dirname "$0")"

java=${JAVA_HOME:+$JAVA_HOME/bin/}java
# The provider sends its webhooks to the service's port, 8080 unless an argument says otherwise.
port=8080
for argument in "$@"; do
    case $argument in --server.port=*) port=${argument#--server.port=} ;; esac
done
provider_port=${PROVIDER_PORT:-8090}
# The demo secret of onceonly-example's application.properties; set both sides to another in earnest.
secret=${EXAMPLE_WEBHOOK_SECRET:-whsec_demo_only_not_a_secret}

./mvnw -q -pl samples/orders-service,samples/payment-provider -am package -DskipTests

"$java" -jar samples/payment-provider/target/onceonly-payment-provider-exec.jar --server.port="$provider_port" \
    --provider.webhook-url="http://localhost:$port/api/webhooks/payments" \
    --provider.webhook-secret="$secret" >samples/payment-provider/target/provider.log 2>&1 &
provider=$!
trap 'kill "$provider" 2>/dev/null || true' EXIT
echo "Payment provider starting on http://localhost:$provider_port (log: samples/payment-provider/target/provider.log)"

redis=()
if (exec 3<>/dev/tcp/127.0.0.1/6379) 2>/dev/null; then
    echo "Redis: using the local one on 127.0.0.1:6379"
elif command -v redis-server >/dev/null 2>&1; then
    redis_port=$(( 20000 + RANDOM % 20000 ))
    redis-server --port "$redis_port" --bind 127.0.0.1 --save '' --appendonly no \
        >samples/orders-service/target/redis.log 2>&1 &
    redis_pid=$!
    trap 'kill "$provider" "$redis_pid" 2>/dev/null || true' EXIT
    redis=(--spring.data.redis.port="$redis_port")
    echo "Redis: started the demo's own on 127.0.0.1:$redis_port (no persistence; log: samples/orders-service/target/redis.log)"
else
    redis=(--onceonly.redis.enabled=false)
    echo "Redis: none found (install redis-server for the fast layer and the checkout page's form tokens);"
    echo "       the service runs on the database alone"
fi

"$java" -jar samples/orders-service/target/onceonly-example.jar \
    --example.payments.webhook-secret="$secret" --example.payments.provider-url="http://localhost:$provider_port" \
    "${redis[@]}" "$@"
