#!/usr/bin/env bash
# Runs the reference service on http://localhost:8080 (with its own embedded PostgreSQL) and, beside it, the
# simulated payment provider on http://localhost:8090, each in a process of its own; the provider sends its
# signed webhooks to the service. Ctrl-C stops both. Arguments go to the service (e.g. --server.port=8081).
set -euo pipefail
cd "$(dirname "$0")"

java=${JAVA_HOME:+$JAVA_HOME/bin/}java
# The provider sends its webhooks to the service's port, 8080 unless an argument says otherwise.
port=8080
for argument in "$@"; do
    case $argument in --server.port=*) port=${argument#--server.port=} ;; esac
done
# The demo secret of onceonly-example's application.properties; set both sides to another in earnest.
secret=${EXAMPLE_WEBHOOK_SECRET:-whsec_demo_only_not_a_secret}

./mvnw -q -pl onceonly-example,onceonly-payment-provider -am package -DskipTests

"$java" -jar onceonly-payment-provider/target/onceonly-payment-provider-exec.jar \
    --provider.webhook-url="http://localhost:$port/api/webhooks/payments" \
    --provider.webhook-secret="$secret" >onceonly-payment-provider/target/provider.log 2>&1 &
provider=$!
trap 'kill "$provider" 2>/dev/null || true' EXIT
echo "Payment provider starting on http://localhost:8090 (log: onceonly-payment-provider/target/provider.log)"

"$java" -jar onceonly-example/target/onceonly-example.jar \
    --example.payments.webhook-secret="$secret" "$@"
