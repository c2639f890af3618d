package dev.onceonly.example;

import static org.assertj.core.api.Assertions.assertThat;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.util.Objects;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInfo;
import org.junit.jupiter.api.Timeout;
import org.openqa.selenium.By;
import org.openqa.selenium.JavascriptExecutor;
import org.openqa.selenium.OutputType;
import org.openqa.selenium.TakesScreenshot;
import org.openqa.selenium.WebDriver;
import org.openqa.selenium.WebElement;
import org.openqa.selenium.chrome.ChromeDriver;
import org.openqa.selenium.chrome.ChromeDriverService;
import org.openqa.selenium.chrome.ChromeOptions;
import org.openqa.selenium.interactions.Actions;
import org.openqa.selenium.support.ui.ExpectedConditions;
import org.openqa.selenium.support.ui.WebDriverWait;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.context.annotation.Import;
import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.test.context.TestPropertySource;

/**
 * The checkout page in headless Chromium (Debian's chromium and chromedriver, which .ci/run installs), clicked as
 * users and broken pages do: double and triple clicks with the button's disabling bypassed, a reload and a
 * resubmission, a page that lost its key. Each makes exactly one order per form. Screenshots go to
 * {@code target/screenshots}. Fails, never skips, without Chromium.
 */
@SpringBootTest(webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT)
@Import(OrdersHttpContract.FailureInjection.class)
@TestPropertySource(properties = {
    "spring.datasource.url=${onceonly.test.postgres.url:jdbc:postgresql://127.0.0.1:5432/test?user=postgres}"
            + "&currentSchema=onceonly_example",
    "spring.flyway.schemas=onceonly_example"
})
@Timeout(180)
class CheckoutPageBrowserIT {

    private static final Path SCREENSHOTS = Path.of("target", "screenshots");
    private static final Duration WAIT = Duration.ofSeconds(20);
    /** The button ignores being disabled: what a script, an old browser or an impatient user's tool does. */
    private static final String BYPASS_DISABLING = """
            Object.defineProperty(document.getElementById('place'), 'disabled', {get: () => false, set: () => {}, configurable: true});""";

    private static ChromeDriverService service;
    private static WebDriver browser;

    @LocalServerPort
    int port;

    @Autowired
    JdbcClient jdbc;

    @Autowired
    MeterRegistry meters;

    private String test;

    @BeforeAll
    static void startBrowser() throws IOException {
        service = new ChromeDriverService.Builder()
                .usingDriverExecutable(Path.of(env("ONCEONLY_CHROMEDRIVER", "/usr/bin/chromedriver")).toFile())
                .usingAnyFreePort().build();
        service.start();
        ChromeOptions options = new ChromeOptions().setBinary(env("ONCEONLY_CHROMIUM", "/usr/bin/chromium"))
                .addArguments("--headless=new", "--no-sandbox", "--disable-dev-shm-usage", "--window-size=900,1000");
        browser = new ChromeDriver(service, options);
        Files.createDirectories(SCREENSHOTS);
    }

    @AfterAll
    static void stopBrowser() {
        if (browser != null) {
            browser.quit();
        }
        if (service != null) {
            service.stop();
        }
    }

    @BeforeEach
    void freshTab(TestInfo info) {
        test = info.getTestMethod().orElseThrow().getName();
        String page = "http://127.0.0.1:" + port + "/checkout.html";
        browser.get(page);
        // A new tab's state: what an earlier test kept in this tab is gone before the page renders again.
        ((JavascriptExecutor) browser).executeScript("sessionStorage.clear()");
        browser.get(page);
        openPage();
    }

    @Test
    void aTripleClickAndADoubleClickWithTheButtonsDisablingBypassedMakeOneOrderEach() {
        int before = orders();
        double requestsBefore = checkoutRequests();
        ((JavascriptExecutor) browser).executeScript(BYPASS_DISABLING);
        ((JavascriptExecutor) browser).executeScript(
                "const b = document.getElementById('place'); b.click(); b.click(); b.click();");
        awaitOrder();
        screenshot("triple-click");
        assertThat(orders()).isEqualTo(before + 1);
        assertThat(checkoutRequests()).as("submissions that reached the service").isGreaterThanOrEqualTo(
                requestsBefore + 3);

        browser.findElement(By.id("new-order")).click();
        new WebDriverWait(browser, WAIT).until(ExpectedConditions.invisibilityOfElementLocated(By.id("order")));
        ((JavascriptExecutor) browser).executeScript(BYPASS_DISABLING);
        new Actions(browser).doubleClick(browser.findElement(By.id("place"))).perform();
        awaitOrder();
        screenshot("double-click");
        assertThat(orders()).isEqualTo(before + 2);
    }

    @Test
    void aReloadAndAResubmissionGetTheFirstAnswerBackMarkedAsAReplay() {
        int before = orders();
        browser.findElement(By.id("place")).click();
        String orderNo = awaitOrder();
        assertThat(text("replayed")).isEqualTo("first answer");

        browser.navigate().refresh();
        openPage();
        assertThat(text("order-no")).as("the order, still shown after the reload").isEqualTo(orderNo);
        browser.findElement(By.id("place")).click();
        new WebDriverWait(browser, WAIT).until(ExpectedConditions.textToBePresentInElementLocated(By.id("replayed"),
                "replayed"));
        screenshot("reloaded-and-resubmitted");

        assertThat(text("order-no")).isEqualTo(orderNo);
        assertThat(orders()).isEqualTo(before + 1);
    }

    @Test
    void aPageThatLostItsKeyCannotSubmitTheSameFormTwice() {
        int before = orders();
        browser.findElement(By.id("place")).click();
        awaitOrder();

        // A broken page: same form, same token, a new key, as if the key had never been kept.
        ((JavascriptExecutor) browser).executeScript("""
                const state = JSON.parse(sessionStorage.getItem('onceonly-checkout'));
                state.key = crypto.randomUUID();
                state.order = null;
                sessionStorage.setItem('onceonly-checkout', JSON.stringify(state));""");
        browser.navigate().refresh();
        openPage();
        browser.findElement(By.id("place")).click();
        new WebDriverWait(browser, WAIT).until(ExpectedConditions.textToBePresentInElementLocated(By.id("problem"),
                "Form already submitted"));
        screenshot("same-form-new-key");

        assertThat(orders()).isEqualTo(before + 1);
    }

    private void openPage() {
        new WebDriverWait(browser, WAIT).until(driver -> !text("idempotency-key").isEmpty()
                && !text("status").startsWith("Preparing"));
    }

    private String awaitOrder() {
        new WebDriverWait(browser, WAIT).until(ExpectedConditions.visibilityOfElementLocated(By.id("order")));
        new WebDriverWait(browser, WAIT).until(driver -> text("order-no").startsWith("ORD-"));
        return text("order-no");
    }

    private String text(String id) {
        WebElement element = browser.findElement(By.id(id));
        return Objects.requireNonNullElse(element.getAttribute("textContent"), "").trim();
    }

    private void screenshot(String name) {
        try {
            Files.copy(((TakesScreenshot) browser).getScreenshotAs(OutputType.FILE).toPath(),
                    SCREENSHOTS.resolve(test + "-" + name + ".png"), StandardCopyOption.REPLACE_EXISTING);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** Checkout requests the service has answered, however they ended. */
    private double checkoutRequests() {
        return meters.find("onceonly.requests").tag("operation", "checkout").counters().stream()
                .mapToDouble(Counter::count).sum();
    }

    private int orders() {
        return jdbc.sql("SELECT count(*) FROM orders WHERE owner = 'acme alice'").query(Integer.class).single();
    }

    private static String env(String name, String otherwise) {
        String value = System.getenv(name);
        return value == null || value.isBlank() ? otherwise : value;
    }
}
