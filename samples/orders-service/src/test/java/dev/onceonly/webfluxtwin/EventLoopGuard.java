package dev.onceonly.webfluxtwin;

import dev.onceonly.spi.IdempotencyStore;
import dev.onceonly.spring.boot.IdempotencyStoreDecorator;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import reactor.core.scheduler.Schedulers;

/**
 * Fails every call of the idempotency store made on a thread that must not block (Reactor Netty's event loop,
 * Reactor's parallel scheduler), and notes it, so that a test can fail on it even where the failure was answered.
 */
public final class EventLoopGuard implements IdempotencyStoreDecorator {

    private final List<String> violations = new CopyOnWriteArrayList<>();
    private final List<String> storeThreads = new CopyOnWriteArrayList<>();

    @Override
    public IdempotencyStore decorate(IdempotencyStore store) {
        return (IdempotencyStore) Proxy.newProxyInstance(IdempotencyStore.class.getClassLoader(),
                new Class<?>[] {IdempotencyStore.class}, (proxy, method, arguments) -> {
                    Thread thread = Thread.currentThread();
                    storeThreads.add(thread.getName());
                    if (Schedulers.isInNonBlockingThread()) {
                        violations.add(method.getName() + " on " + thread.getName());
                        throw new IllegalStateException("IdempotencyStore." + method.getName() + " called on "
                                + thread.getName() + ", which must not block");
                    }
                    try {
                        return method.invoke(store, arguments);
                    } catch (InvocationTargetException e) {
                        throw e.getCause();
                    }
                });
    }

    /** The store calls made on threads that must not block. */
    public List<String> violations() {
        return List.copyOf(violations);
    }

    /** The threads the store was called on. */
    public List<String> storeThreads() {
        return List.copyOf(storeThreads);
    }
}
