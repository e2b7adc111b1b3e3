"""The model stage: reference architectures, the zoo, and the data that goes into requests."""
