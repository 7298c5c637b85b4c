"""The scheduling framework: extension points, runtime and state. Knows no concrete plugin."""
