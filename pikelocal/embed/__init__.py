"""Text encoders: ONNX (onnxruntime + tokenizers), late-chunking span pooling, a hashing fake for tests."""
