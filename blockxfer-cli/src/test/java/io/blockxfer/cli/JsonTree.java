package io.blockxfer.cli;

import java.util.ArrayList;
import java.util.List;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/** Reads the tool's JSON output with Jackson, strictly: the whole text must be one JSON value. */
final class JsonTree {

    private static final JsonMapper MAPPER = JsonMapper.builder().build();

    private JsonTree() {
    }

    static JsonNode parse(String text) {
        return MAPPER.readTree(text);
    }

    /** The elements of a top-level JSON array of objects. */
    static List<JsonNode> objects(String text) {
        return objects(parse(text), text);
    }

    /** The rows of {@code bench --json}: the array {@code rows} of its top-level object. */
    static List<JsonNode> rows(String text) {
        return objects(report(text).get("rows"), text);
    }

    /** The top-level object of {@code bench --json}, with exactly its two arrays. */
    static JsonNode report(String text) {
        JsonNode root = parse(text);
        if (!root.isObject() || root.size() != 2 || !root.path("rows").isArray()
                || !root.path("recommendations").isArray()) {
            throw new AssertionError("not {\"rows\": [...], \"recommendations\": [...]}: " + text);
        }
        return root;
    }

    static List<JsonNode> objects(JsonNode array, String text) {
        if (!array.isArray()) {
            throw new AssertionError("not a JSON array: " + text);
        }
        List<JsonNode> list = new ArrayList<>();
        for (JsonNode n : array) {
            if (!n.isObject()) {
                throw new AssertionError("not an object: " + n);
            }
            list.add(n);
        }
        return list;
    }
}
