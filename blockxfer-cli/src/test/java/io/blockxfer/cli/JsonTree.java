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
        JsonNode root = parse(text);
        if (!root.isArray()) {
            throw new AssertionError("not a JSON array: " + text);
        }
        List<JsonNode> list = new ArrayList<>();
        for (JsonNode n : root) {
            if (!n.isObject()) {
                throw new AssertionError("not an object: " + n);
            }
            list.add(n);
        }
        return list;
    }
}
