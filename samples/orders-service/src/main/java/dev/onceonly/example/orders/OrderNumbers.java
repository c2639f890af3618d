package dev.onceonly.example.orders;

/** Hands out order numbers; each number is unique (the database enforces it too). */
@FunctionalInterface
public interface OrderNumbers {

    String next();
}
