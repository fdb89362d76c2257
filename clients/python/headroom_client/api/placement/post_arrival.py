from http import HTTPStatus
from typing import Any
from urllib.parse import quote

import httpx

from ... import errors
from ...client import AuthenticatedClient, Client
from ...models.arrival_in import ArrivalIn
from ...models.placement_out import PlacementOut
from ...models.problem import Problem
from ...models.queue_arrival_out import QueueArrivalOut
from ...types import UNSET, Response, Unset


def _get_kwargs(
    cluster_id: str,
    *,
    body: ArrivalIn,
    idempotency_key: None | str | Unset = UNSET,
) -> dict[str, Any]:
    headers: dict[str, Any] = {}
    if not isinstance(idempotency_key, Unset):
        headers["Idempotency-Key"] = idempotency_key

    _kwargs: dict[str, Any] = {
        "method": "post",
        "url": "/v1/clusters/{cluster_id}/arrivals".format(
            cluster_id=quote(str(cluster_id), safe=""),
        ),
    }

    _kwargs["json"] = body.to_dict()

    headers["Content-Type"] = "application/json"

    _kwargs["headers"] = headers
    return _kwargs


def _parse_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> PlacementOut | QueueArrivalOut | Problem | QueueArrivalOut | None:
    if response.status_code == 200:

        def _parse_response_200(data: object) -> PlacementOut | QueueArrivalOut:
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                response_200_type_0 = PlacementOut.from_dict(data)

                return response_200_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            if not isinstance(data, dict):
                raise TypeError()
            response_200_type_1 = QueueArrivalOut.from_dict(data)

            return response_200_type_1

        response_200 = _parse_response_200(response.json())

        return response_200

    if response.status_code == 202:
        response_202 = QueueArrivalOut.from_dict(response.json())

        return response_202

    if response.status_code == 400:
        response_400 = Problem.from_dict(response.json())

        return response_400

    if response.status_code == 401:
        response_401 = Problem.from_dict(response.json())

        return response_401

    if response.status_code == 403:
        response_403 = Problem.from_dict(response.json())

        return response_403

    if response.status_code == 404:
        response_404 = Problem.from_dict(response.json())

        return response_404

    if response.status_code == 409:
        response_409 = Problem.from_dict(response.json())

        return response_409

    if response.status_code == 413:
        response_413 = Problem.from_dict(response.json())

        return response_413

    if response.status_code == 422:
        response_422 = Problem.from_dict(response.json())

        return response_422

    if response.status_code == 429:
        response_429 = Problem.from_dict(response.json())

        return response_429

    if response.status_code == 503:
        response_503 = Problem.from_dict(response.json())

        return response_503

    if client.raise_on_unexpected_status:
        raise errors.UnexpectedStatus(response.status_code, response.content)
    else:
        return None


def _build_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> Response[PlacementOut | QueueArrivalOut | Problem | QueueArrivalOut]:
    return Response(
        status_code=HTTPStatus(response.status_code),
        content=response.content,
        headers=response.headers,
        parsed=_parse_response(client=client, response=response),
    )


def sync_detailed(
    cluster_id: str,
    *,
    client: AuthenticatedClient,
    body: ArrivalIn,
    idempotency_key: None | str | Unset = UNSET,
) -> Response[PlacementOut | QueueArrivalOut | Problem | QueueArrivalOut]:
    """A job arrives: place it or reject it (queued clusters: queue it)

    Args:
        cluster_id (str):
        idempotency_key (None | str | Unset):
        body (ArrivalIn):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[PlacementOut | QueueArrivalOut | Problem | QueueArrivalOut]
    """

    kwargs = _get_kwargs(
        cluster_id=cluster_id,
        body=body,
        idempotency_key=idempotency_key,
    )

    response = client.get_httpx_client().request(
        **kwargs,
    )

    return _build_response(client=client, response=response)


def sync(
    cluster_id: str,
    *,
    client: AuthenticatedClient,
    body: ArrivalIn,
    idempotency_key: None | str | Unset = UNSET,
) -> PlacementOut | QueueArrivalOut | Problem | QueueArrivalOut | None:
    """A job arrives: place it or reject it (queued clusters: queue it)

    Args:
        cluster_id (str):
        idempotency_key (None | str | Unset):
        body (ArrivalIn):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        PlacementOut | QueueArrivalOut | Problem | QueueArrivalOut
    """

    return sync_detailed(
        cluster_id=cluster_id,
        client=client,
        body=body,
        idempotency_key=idempotency_key,
    ).parsed


async def asyncio_detailed(
    cluster_id: str,
    *,
    client: AuthenticatedClient,
    body: ArrivalIn,
    idempotency_key: None | str | Unset = UNSET,
) -> Response[PlacementOut | QueueArrivalOut | Problem | QueueArrivalOut]:
    """A job arrives: place it or reject it (queued clusters: queue it)

    Args:
        cluster_id (str):
        idempotency_key (None | str | Unset):
        body (ArrivalIn):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[PlacementOut | QueueArrivalOut | Problem | QueueArrivalOut]
    """

    kwargs = _get_kwargs(
        cluster_id=cluster_id,
        body=body,
        idempotency_key=idempotency_key,
    )

    response = await client.get_async_httpx_client().request(**kwargs)

    return _build_response(client=client, response=response)


async def asyncio(
    cluster_id: str,
    *,
    client: AuthenticatedClient,
    body: ArrivalIn,
    idempotency_key: None | str | Unset = UNSET,
) -> PlacementOut | QueueArrivalOut | Problem | QueueArrivalOut | None:
    """A job arrives: place it or reject it (queued clusters: queue it)

    Args:
        cluster_id (str):
        idempotency_key (None | str | Unset):
        body (ArrivalIn):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        PlacementOut | QueueArrivalOut | Problem | QueueArrivalOut
    """

    return (
        await asyncio_detailed(
            cluster_id=cluster_id,
            client=client,
            body=body,
            idempotency_key=idempotency_key,
        )
    ).parsed
