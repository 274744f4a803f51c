import com.google.gson.JsonArray;
import com.google.gson.JsonElement;
import com.google.gson.JsonObject;
import com.google.gson.JsonParser;
import java.io.InputStreamReader;
import java.lang.reflect.InvocationTargetException;
import java.nio.charset.StandardCharsets;
import java.util.Map;

/**
 * Reads a JSON array of manifests on stdin and prints one line per manifest: `ok <kind>/<name>`, `invalid
 * <kind>/<name>: <reason>` or `unknown <kind>/<name>` for a kind the Kubernetes API does not define (custom
 * resources). Each is checked by the model the Kubernetes Java client generates from the API's OpenAPI for
 * its version: unknown fields, missing required fields and wrong types are invalid. Run with Java 21 as a
 * source file: java -cp 'target/libs/*' ValidateManifests.java < manifests.json
 */
public class ValidateManifests {
  private static final String MODELS = "io.kubernetes.client.openapi.models.";

  /** apiVersion/kind to the model's class name, for the kinds deploy/k8s uses. */
  private static final Map<String, String> KINDS = Map.ofEntries(
      Map.entry("v1/Namespace", "V1Namespace"),
      Map.entry("v1/ConfigMap", "V1ConfigMap"),
      Map.entry("v1/Secret", "V1Secret"),
      Map.entry("v1/Service", "V1Service"),
      Map.entry("v1/ServiceAccount", "V1ServiceAccount"),
      Map.entry("apps/v1/Deployment", "V1Deployment"),
      Map.entry("apps/v1/StatefulSet", "V1StatefulSet"),
      Map.entry("batch/v1/Job", "V1Job"),
      Map.entry("batch/v1/CronJob", "V1CronJob"),
      Map.entry("autoscaling/v2/HorizontalPodAutoscaler", "V2HorizontalPodAutoscaler"),
      Map.entry("networking.k8s.io/v1/NetworkPolicy", "V1NetworkPolicy"),
      Map.entry("networking.k8s.io/v1/Ingress", "V1Ingress"),
      Map.entry("policy/v1/PodDisruptionBudget", "V1PodDisruptionBudget"));

  public static void main(String[] args) throws Exception {
    JsonArray manifests = JsonParser.parseReader(new InputStreamReader(System.in, StandardCharsets.UTF_8)).getAsJsonArray();
    for (JsonElement element : manifests) {
      JsonObject manifest = element.getAsJsonObject();
      String key = manifest.get("apiVersion").getAsString() + "/" + manifest.get("kind").getAsString();
      String name = manifest.get("kind").getAsString() + "/" + manifest.getAsJsonObject("metadata").get("name").getAsString();
      String model = KINDS.get(key);
      if (model == null) {
        System.out.println("unknown " + name);
        continue;
      }
      try {
        Class<?> type = Class.forName(MODELS + model);
        // Fields and required fields, then the values' types (a number where the API has a string, ...).
        type.getMethod("validateJsonElement", JsonElement.class).invoke(null, manifest);
        type.getMethod("fromJson", String.class).invoke(null, manifest.toString());
        System.out.println("ok " + name);
      } catch (InvocationTargetException failure) {
        String reason = String.valueOf(failure.getCause().getMessage()).replace('\n', ' ');
        System.out.println("invalid " + name + ": " + (reason.length() > 300 ? reason.substring(0, 300) + "..." : reason));
      }
    }
  }
}
