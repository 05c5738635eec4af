"""Asking a model for versions: the endpoint, prompts, context, proposed inputs."""
