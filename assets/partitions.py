"""The one dynamic partitions definition: a partition per document, keyed by document_id."""

import dagster as dg

documents_partitions = dg.DynamicPartitionsDefinition(name="documents")
