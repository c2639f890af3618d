import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.stream.Stream;
import java.util.zip.ZipEntry;
import java.util.zip.ZipFile;
import javax.xml.parsers.DocumentBuilderFactory;
import org.w3c.dom.Document;
import org.w3c.dom.Element;
import org.w3c.dom.Node;
import org.w3c.dom.NodeList;

/**
 * Checks a Central Portal bundle (a zip, or a folder a deployment staged in the Maven layout) as the Portal validates
 * a deployment
 * (https://central.sonatype.org/publish/requirements/): every component has its POM, and a jar's its sources and
 * Javadoc jars; every file has an MD5 and a SHA-1 checksum that match it and a signature that gpg verifies; every
 * POM has (or inherits from a parent in the bundle) a name, description, URL, license, developer and SCM URL; no
 * version is a SNAPSHOT, nor any dependency's. Also that the samples and benchmarks are not in it. Prints the staged
 * components; exits 1 with every problem found.
 *
 * <p>Run with the JDK's source launcher: {@code java release/ValidateBundle.java staging-folder-or-bundle.zip 0.1.0}.
 */
public class ValidateBundle {

    private static final Set<String> NEVER_PUBLISHED = Set.of("onceonly-example", "onceonly-payment-provider",
            "onceonly-benchmarks", "onceonly-docs-snippets");
    private static final List<String> METADATA = List.of("name", "description", "url", "licenses/license/name",
            "developers/developer/name", "scm/url");

    public static void main(String[] args) throws Exception {
        Path bundle = Path.of(args[0]);
        String version = args[1];
        List<String> problems = new ArrayList<>();
        Map<String, byte[]> files = new TreeMap<>();
        if (Files.isDirectory(bundle)) {
            try (Stream<Path> staged = Files.walk(bundle)) {
                for (Path file : staged.filter(Files::isRegularFile).toList()) {
                    files.put(bundle.relativize(file).toString().replace('\\', '/'), Files.readAllBytes(file));
                }
            }
        } else {
            try (ZipFile zip = new ZipFile(bundle.toFile())) {
                for (ZipEntry entry : zip.stream().toList()) {
                    if (!entry.isDirectory()) {
                        files.put(entry.getName(), zip.getInputStream(entry).readAllBytes());
                    }
                }
            }
        }
        // A repository's own index, which a deployment to a folder writes and a Portal bundle leaves out
        files.keySet().removeIf(name -> name.contains("maven-metadata"));
        Map<String, List<String>> components = new TreeMap<>();
        for (String name : files.keySet()) {
            if (name.indexOf('/') < 0) {
                problems.add(name + ": a file outside groupId/artifactId/version");
                continue;
            }
            components.computeIfAbsent(name.substring(0, name.lastIndexOf('/')), directory -> new ArrayList<>())
                    .add(name.substring(name.lastIndexOf('/') + 1));
        }
        Map<String, Document> poms = new TreeMap<>();
        for (String directory : components.keySet()) {
            String[] path = directory.split("/");
            String artifactId = path[path.length - 2];
            String pom = directory + "/" + artifactId + "-" + version + ".pom";
            if (!path[path.length - 1].equals(version)) {
                problems.add(directory + ": version " + path[path.length - 1] + ", not " + version);
            }
            if (NEVER_PUBLISHED.contains(artifactId)) {
                problems.add(directory + ": " + artifactId + " must not be published");
            }
            if (!files.containsKey(pom)) {
                problems.add(directory + ": no POM " + pom);
                continue;
            }
            DocumentBuilderFactory factory = DocumentBuilderFactory.newInstance();
            factory.setNamespaceAware(false);
            poms.put(artifactId, factory.newDocumentBuilder().parse(new ByteArrayInputStream(files.get(pom))));
        }
        Path signatures = Files.createTempDirectory("bundle-signatures");
        for (Map.Entry<String, List<String>> component : components.entrySet()) {
            String directory = component.getKey();
            String[] path = directory.split("/");
            String artifactId = path[path.length - 2];
            Document pom = poms.get(artifactId);
            if (pom == null) {
                continue;
            }
            String base = artifactId + "-" + version;
            String packaging = text(pom.getDocumentElement(), "packaging");
            List<String> required = new ArrayList<>(List.of(base + ".pom"));
            if (packaging == null || packaging.equals("jar")) {
                required.addAll(List.of(base + ".jar", base + "-sources.jar", base + "-javadoc.jar"));
            }
            for (String file : required) {
                if (!component.getValue().contains(file)) {
                    problems.add(directory + ": " + file + " is missing");
                }
            }
            for (String file : component.getValue()) {
                if (file.endsWith(".asc") || file.endsWith(".md5") || file.endsWith(".sha1") || file.endsWith(".sha256")
                        || file.endsWith(".sha512")) {
                    continue;
                }
                byte[] content = files.get(directory + "/" + file);
                checkDigest(problems, files, directory + "/" + file, content, "md5", "MD5");
                checkDigest(problems, files, directory + "/" + file, content, "sha1", "SHA-1");
                byte[] signature = files.get(directory + "/" + file + ".asc");
                if (signature == null) {
                    problems.add(directory + "/" + file + ": no signature (.asc)");
                } else if (!verified(signatures, file, content, signature)) {
                    problems.add(directory + "/" + file + ": gpg does not verify its signature");
                }
            }
            for (String element : METADATA) {
                if (inherited(pom, poms, element) == null) {
                    problems.add(directory + ": the POM has no " + element + ", nor a parent in the bundle");
                }
            }
            NodeList versions = pom.getElementsByTagName("version");
            for (int i = 0; i < versions.getLength(); i++) {
                if (versions.item(i).getTextContent().contains("SNAPSHOT")) {
                    problems.add(directory + ": a SNAPSHOT version in its POM");
                }
            }
            System.out.printf("  %-70s %s%n", directory, String.join(" ", component.getValue().stream()
                    .filter(file -> !file.contains(".asc") && !file.matches(".*\\.(md5|sha1|sha256|sha512)$"))
                    .map(file -> file.substring(base.length())).toList()));
        }
        if (!problems.isEmpty()) {
            System.out.println(problems.size() + " problems, which the Central Portal would refuse:");
            problems.forEach(problem -> System.out.println("  " + problem));
            System.exit(1);
        }
        System.out.println(components.size() + " components, " + files.size() + " files: every one signed and "
                + "checksummed, every POM complete, nothing a SNAPSHOT.");
    }

    private static void checkDigest(List<String> problems, Map<String, byte[]> files, String file, byte[] content,
            String extension, String algorithm) throws NoSuchAlgorithmException {
        byte[] expected = files.get(file + "." + extension);
        if (expected == null) {
            problems.add(file + ": no ." + extension + " checksum");
            return;
        }
        String actual = HexFormat.of().formatHex(MessageDigest.getInstance(algorithm).digest(content));
        if (!new String(expected).trim().startsWith(actual)) {
            problems.add(file + ": its ." + extension + " checksum does not match");
        }
    }

    private static boolean verified(Path directory, String name, byte[] content, byte[] signature)
            throws IOException, InterruptedException {
        Path file = directory.resolve(name);
        Path asc = directory.resolve(name + ".asc");
        Files.write(file, content);
        Files.write(asc, signature);
        Process gpg = new ProcessBuilder("gpg", "--batch", "--quiet", "--verify", asc.toString(), file.toString())
                .redirectErrorStream(true).start();
        gpg.getInputStream().readAllBytes();
        return gpg.waitFor() == 0;
    }

    /** The value of {@code path} in this POM, or in its parent's if that is in the bundle. */
    private static String inherited(Document pom, Map<String, Document> poms, String path) {
        String own = text(pom.getDocumentElement(), path);
        if (own != null) {
            return own;
        }
        String parent = text(pom.getDocumentElement(), "parent/artifactId");
        return parent == null || !poms.containsKey(parent) ? null : inherited(poms.get(parent), poms, path);
    }

    private static String text(Element element, String path) {
        Node node = element;
        for (String name : path.split("/")) {
            Node child = null;
            for (Node candidate = node.getFirstChild(); candidate != null; candidate = candidate.getNextSibling()) {
                if (candidate instanceof Element found && found.getTagName().equals(name)) {
                    child = candidate;
                    break;
                }
            }
            if (child == null) {
                return null;
            }
            node = child;
        }
        String text = node.getTextContent().trim();
        return text.isEmpty() ? null : text;
    }
}
